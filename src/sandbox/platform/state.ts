/** The platform's own records (everything that is not a domain resource), kept in memory and snapshotted. */
import type { AccountType, PlanName } from '../http/types.js';

export interface ApiClient {
  id: string;
  name: string;
  accountId: string;
  accountType: AccountType;
  accountName: string;
  key: string;
  keyId: string;
  scopes: string[];
  plan: PlanName;
  ipAllowlist: string[];
  branchIds: string[] | null;
  suspended: boolean;
  revoked: boolean;
  expiresAt: string | null;
  /** What the key is for, e.g. supplier, buyer, read_only, expired (printed by the CLI). */
  purpose: string;
}

export interface FileRecord {
  id: string;
  accountId: string;
  name: string;
  content_type: string;
  size_bytes: number;
  purpose: string;
  sha256: string;
  created_at: string;
  /** Deletion time while unreferenced; null once referenced. */
  expires_at: string | null;
}

export interface WebhookEndpoint {
  id: string;
  accountId: string;
  url: string;
  events: string[];
  status: 'active' | 'failing' | 'disabled';
  description: string | null;
  last_delivery_at: string | null;
  consecutive_failures: number;
  created_at: string;
  secret: string;
  /** Sandbox time of the first failure of the current failing streak. */
  failingSinceMs: number | null;
}

export interface EventEnvelope {
  id: string;
  type: string;
  api_version: '2';
  occurred_at: string;
  account_id: string;
  data: { object: string; id: string } & Record<string, unknown>;
}

export interface DeliveryAttempt {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  status: 'pending' | 'succeeded' | 'failed';
  response_status: number | null;
  response_time_ms: number | null;
  response_snippet: string | null;
  error: string | null;
  attempted_at: string | null;
  next_retry_at: string | null;
  /** Sandbox time at which a pending attempt is due. */
  dueAtMs: number;
  /** Due time of attempt 1: retries are scheduled from it, so processing delays never push the last one later. */
  scheduleStartMs: number;
  created_at: string;
}

export interface IdempotencyEntry {
  scope: string;
  fingerprint: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  createdAtMs: number;
}

export interface AuditEntry {
  request_id: string;
  timestamp: string;
  environment: 'sandbox';
  account_id: string | null;
  client_id: string | null;
  client_name: string | null;
  key_id: string | null;
  method: string;
  path: string;
  query: string | null;
  status: number;
  error_code: string | null;
  latency_ms: number;
  ip: string;
  user_agent: string | null;
  request_bytes: number;
  response_bytes: number;
  scope_used: string | null;
}

export interface ExportFile {
  resource: string;
  blobId: string;
  size_bytes: number;
  row_count: number;
}

export interface ExportJob {
  id: string;
  accountId: string;
  status: 'queued' | 'running' | 'completed' | 'failed' | 'expired';
  request: {
    resources: string[];
    from?: string;
    to?: string;
    format: 'ndjson' | 'csv';
    branch_ids?: string[];
  };
  files: ExportFile[];
  error: string | null;
  created_at: string;
  completed_at: string | null;
}

export interface PlatformSnapshot {
  version: 1;
  clients: ApiClient[];
  jwtSecret: string;
  urlSecret: string;
  files: FileRecord[];
  webhooks: WebhookEndpoint[];
  events: EventEnvelope[];
  deliveries: DeliveryAttempt[];
  idempotency: IdempotencyEntry[];
  audit: AuditEntry[];
  exports: ExportJob[];
}

/** Live platform state; maps keep insertion order, which list endpoints rely on for ties. */
export class PlatformState {
  clients: ApiClient[] = [];
  jwtSecret = '';
  urlSecret = '';
  files = new Map<string, FileRecord>();
  webhooks = new Map<string, WebhookEndpoint>();
  events = new Map<string, EventEnvelope>();
  deliveries = new Map<string, DeliveryAttempt>();
  idempotency = new Map<string, IdempotencyEntry>();
  audit: AuditEntry[] = [];
  exports = new Map<string, ExportJob>();
  /** File and export contents by blob id. */
  blobs = new Map<string, Buffer>();

  snapshot(): PlatformSnapshot {
    return {
      version: 1,
      clients: this.clients,
      jwtSecret: this.jwtSecret,
      urlSecret: this.urlSecret,
      files: [...this.files.values()],
      webhooks: [...this.webhooks.values()],
      events: [...this.events.values()],
      deliveries: [...this.deliveries.values()],
      idempotency: [...this.idempotency.values()],
      audit: this.audit,
      exports: [...this.exports.values()],
    };
  }

  restore(snapshot: PlatformSnapshot): void {
    this.clients = snapshot.clients;
    this.jwtSecret = snapshot.jwtSecret;
    this.urlSecret = snapshot.urlSecret;
    this.files = new Map(snapshot.files.map((f) => [f.id, f]));
    this.webhooks = new Map(snapshot.webhooks.map((w) => [w.id, w]));
    this.events = new Map(snapshot.events.map((e) => [e.id, e]));
    this.deliveries = new Map(snapshot.deliveries.map((d) => [d.id, d]));
    this.idempotency = new Map(snapshot.idempotency.map((i) => [i.scope, i]));
    this.audit = snapshot.audit;
    this.exports = new Map(snapshot.exports.map((x) => [x.id, x]));
  }

  /** Everything but the clients and secrets, as /_sandbox/reset wants it. */
  clearActivity(): void {
    this.files.clear();
    this.webhooks.clear();
    this.events.clear();
    this.deliveries.clear();
    this.idempotency.clear();
    this.audit = [];
    this.exports.clear();
    this.blobs.clear();
  }
}
