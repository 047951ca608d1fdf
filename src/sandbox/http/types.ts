/**
 * The seam between the sandbox's HTTP platform (auth, scopes, plans, rate limits, idempotency, errors, paging,
 * events, persistence) and its domain (the resources and their state machines). Domain modules export
 * `RouteDef`s; the platform enforces everything declared here before calling `handle`.
 */
import type { Clock } from '../../shared/clock.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type AccountType = 'supplier' | 'buyer';
export type PlanName = 'supplier' | 'Basic' | 'Pro' | 'Enterprise';

/** Who is calling, resolved by the platform from the API key or access token. */
export interface Caller {
  accountId: string;
  accountType: AccountType;
  clientId: string;
  clientName: string;
  keyId: string;
  scopes: readonly string[];
  plan: PlanName;
  /** null means no branch restriction. */
  branchIds: readonly string[] | null;
}

/** Thrown by handlers (or the platform) and rendered as application/problem+json. */
export class ProblemError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly extra: {
      errors?: { field: string; code: string; message?: string }[];
      upgrade_url?: string;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(detail);
    this.name = 'ProblemError';
  }
}

/** An event the domain raises; the platform assigns the id, signs, delivers, and retries. */
export interface RaisedEvent {
  type: string;
  accountId: string;
  data: { object: string; id: string } & Record<string, unknown>;
}

export interface RequestContext {
  method: HttpMethod;
  /** Path below /v2, e.g. /supplier/orders/ord_1/confirm. */
  path: string;
  params: Readonly<Record<string, string>>;
  query: URLSearchParams;
  /** Parsed JSON body (undefined when there is none); multipart bodies arrive as `form`. */
  body: unknown;
  form?: FormData;
  headers: Readonly<Record<string, string | undefined>>;
  caller: Caller;
  clock: Clock;
  requestId: string;
  /** Queue an event for delivery to the caller's or another account's webhooks. */
  raise(event: RaisedEvent): void;
}

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RouteDef {
  method: HttpMethod;
  /** Express-style pattern below /v2, e.g. '/supplier/orders/:order_id/confirm'. */
  path: string;
  /** Required scope; omitted means any valid credential. */
  scope?: string;
  /** Which account type may call it; omitted means either. */
  accountType?: AccountType;
  /** Minimum plan (Pro or Enterprise); the platform answers 403 plan_required with upgrade_url. */
  minPlan?: 'Pro' | 'Enterprise';
  /** Idempotency-Key handling; the platform stores and replays responses. */
  idempotency?: 'required' | 'optional';
  /** Contract group marked "not yet available" (kept callable in the sandbox; listed for documentation). */
  group: string;
  handle(ctx: RequestContext): Reply | Promise<Reply>;
}

/** Fixed ids of the seeded demo accounts, known to both halves of the sandbox. */
export const DEMO_SUPPLIER_ACCOUNT_ID = 'acc_demo_supplier';
export const DEMO_BUYER_ACCOUNT_ID = 'acc_demo_buyer';

/** What the platform lends the domain. */
export interface DomainServices {
  clock: Clock;
  raise(event: RaisedEvent): void;
  files: {
    /** True when the file exists, belongs to the account and has not been deleted. */
    exists(accountId: string, fileId: string): boolean;
    /** Marks a file as referenced, so the 24-hour cleanup keeps it. */
    markReferenced(fileId: string): void;
  };
}

/** The resources and state machines of the contract, as the platform composes them. */
export interface SandboxDomain {
  routes: RouteDef[];
  /** JSON-serializable snapshot for --state persistence, and its inverse. */
  snapshot(): unknown;
  restore(snapshot: unknown): void;
  /**
   * Optional: the live state, to serialize at once instead of a copy (no other code runs before the caller is
   * done with it). Saves a deep copy of the whole state on every save of a large sandbox.
   */
  liveSnapshot?(): unknown;
  /** Back to the seed data. */
  reset(): void;
  /** Control-plane actions by name (simulate activity as the buyer, etc.); body is the parsed JSON request. */
  actions: Record<string, (body: unknown) => unknown>;
  /** Everything the domain holds, by collection, for tests and demos. */
  readout(): Record<string, unknown>;
  /** Optional: the display name of a seeded account, so GET /me names it as the domain does. */
  accountName?(accountId: string): string | undefined;
  /** Rows of one export resource (orders, documents, ...) for bulk export jobs. */
  exportRows(
    accountId: string,
    resource: string,
    filter: { from?: string; to?: string; branchIds?: readonly string[] },
  ): Iterable<Record<string, unknown>>;
}

/**
 * Where a world's data starts: the seed of its random data and its first id. The demo world is the default; an
 * account created through the harness (POST /_sandbox/accounts) gets a world of its own, seeded apart, whose ids
 * start far from every other world's so that no id is shared.
 */
export interface WorldSeed {
  seed: number;
  firstId: number;
  /** The last id the world may hand out: the next world's ids start after it. */
  lastId?: number;
  /** A snapshot the world starts from instead of its seed (a restart from the state file). */
  saved?: unknown;
}

/** An account created through the harness (POST /_sandbox/accounts), beyond the demo pair. */
export interface CreatedAccount {
  id: string;
  type: AccountType;
  name: string;
  /** The seed of its world's data. */
  seed: number;
  /** Its key's plan: `supplier` for a supplier; Basic, Pro or Enterprise for a buyer. */
  plan: PlanName;
  clientId: string;
  createdAt: string;
}

export interface NewAccount {
  type: AccountType;
  name: string;
  seed?: number;
  plan?: PlanName;
}

/** What the harness does with created accounts. */
export interface AccountRegistry {
  create(input: NewAccount): { account: CreatedAccount; key: string };
  list(): readonly CreatedAccount[];
  worldOf(accountId: string): AccountWorld | null;
}

/** A created account's world and the id the account has inside it (the demo account of its type). */
export interface AccountWorld {
  domain: SandboxDomain;
  insideId: string;
}

export type CreateDomain = (services: DomainServices, world?: WorldSeed) => SandboxDomain;
