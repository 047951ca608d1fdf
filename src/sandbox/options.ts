/** Options and the handle returned by startSandbox. */
import type { Clock } from '../shared/clock.js';
import type { CreateDomain } from './http/types.js';
import type { RateLimitOverrides } from './platform/rate-limit.js';
import type { SandboxControl } from './harness/client.js';

export interface SandboxOptions {
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** SQLite file that keeps all state across restarts; in memory when omitted. */
  statePath?: string;
  /** Divides the webhook retry schedule and failure window (and nothing else; tokens still live 3600 s). */
  timeScale?: number;
  /** Admit http://127.0.0.1 and http://localhost webhook URLs. */
  allowHttpWebhooks?: boolean;
  /** Sandbox time source; pass createManualClock() to drive time through POST /_sandbox/clock. */
  clock?: Clock;
  /** Derive the API keys and signing secrets from this seed (same seed, same keys). */
  seed?: string;
  /** Replace plan rate limits, e.g. { all: { per_minute: 5 } }. */
  rateLimitOverrides?: RateLimitOverrides;
  /** The resources; defaults to the contract domain. */
  createDomain?: CreateDomain;
  /** How often the background loop runs (real milliseconds); default 20. */
  tickIntervalMs?: number;
  /** Unexpected errors (handler crashes); the response is a 500 internal_error either way. */
  onError?: (error: unknown) => void;
}

export interface SandboxKeyInfo {
  key: string;
  client_id: string;
  scopes: string[];
  plan: string;
  purpose: string;
}

export interface SandboxKeys {
  supplier: string;
  buyer: string;
  /** Supplier read scopes only. */
  readOnly: string;
  /** Buyer read scopes only (Pro). */
  buyerReadOnly: string;
  expired: string;
  revoked: string;
  suspended: string;
  basic: string;
  enterprise: string;
  ipRestricted: string;
}

export interface RunningSandbox {
  /** http://127.0.0.1:PORT/v2 */
  baseUrl: string;
  /** http://127.0.0.1:PORT/_sandbox */
  controlUrl: string;
  origin: string;
  port: number;
  keys: SandboxKeys;
  /** Every key with its client id, scopes, plan and purpose. */
  clients: SandboxKeyInfo[];
  clock: Clock;
  /** Typed calls to the control plane (reset, actions, faults, simulate, clock, state). */
  control: SandboxControl;
  /** Runs the background loop once now (deliveries due, file cleanup, export jobs). */
  tick(): void;
  /** Stops the server and background work, saves the state file. */
  close(): Promise<void>;
}
