/** What the platform's modules share: state, time, persistence hooks and event raising. */
import type { Clock } from '../../shared/clock.js';
import type { MonotonicTimestamps } from '../http/paging.js';
import type { AccountWorld, RaisedEvent, SandboxDomain } from '../http/types.js';
import type { RateLimitOverrides } from './rate-limit.js';
import type { PlatformState } from './state.js';

export interface PlatformContext {
  state: PlatformState;
  clock: Clock;
  stamps: MonotonicTimestamps;
  /** Webhook retry schedule, failure window and simulator rates are divided by this. */
  timeScale: number;
  allowHttpWebhooks: boolean;
  rateLimitOverrides: RateLimitOverrides | undefined;
  /** http://127.0.0.1:PORT once listening. */
  origin(): string;
  domain(): SandboxDomain;
  /** A created account's world (POST /_sandbox/accounts); null for the demo accounts, which share the demo world. */
  worldOf(accountId: string): AccountWorld | null;
  /** Schedules a save of the state file (coalesced). */
  markDirty(): void;
  putBlob(id: string, data: Buffer): void;
  deleteBlob(id: string): void;
  raise(event: RaisedEvent): void;
  /** Runs the background tick soon (deliveries due now, export jobs). */
  kick(): void;
}

export function isoNow(ctx: Pick<PlatformContext, 'clock'>): string {
  return new Date(ctx.clock.now()).toISOString();
}
