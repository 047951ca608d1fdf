/** What every domain module works with: the mutable state, the injected clock and the event sink. */
import type { DomainServices, RaisedEvent } from '../http/types.js';
import { DEMO_BUYER_ACCOUNT_ID, DEMO_SUPPLIER_ACCOUNT_ID } from '../http/types.js';
import type { DomainState } from './state.js';

export interface DomainEnv {
  state: DomainState;
  services: DomainServices;
}

export function newId(env: DomainEnv, prefix: string): string {
  const id = `${prefix}_${env.state.nextId.toString(36).padStart(6, '0')}`;
  env.state.nextId += 1;
  return id;
}

export const nowIso = (env: DomainEnv): string => new Date(env.services.clock.now()).toISOString();
export const today = (env: DomainEnv): string => nowIso(env).slice(0, 10);

export function raise(env: DomainEnv, event: RaisedEvent): void {
  env.state.eventCounts[event.type] = (env.state.eventCounts[event.type] ?? 0) + 1;
  env.services.raise(event);
}
export const raiseToSupplier = (env: DomainEnv, type: string, data: RaisedEvent['data']): void =>
  raise(env, { type, accountId: DEMO_SUPPLIER_ACCOUNT_ID, data });
export const raiseToBuyer = (env: DomainEnv, type: string, data: RaisedEvent['data']): void =>
  raise(env, { type, accountId: DEMO_BUYER_ACCOUNT_ID, data });

/** Deep copy through JSON: state objects are plain JSON by construction. */
export const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/**
 * The next updated_at for a resource last written at `previous`: the clock's time, moved 1 ms past `previous`
 * when the clock has not advanced, so two versions of one resource never share (id, updated_at) or an ETag.
 * Different resources may still share a timestamp (cursor ties are real and clients must handle them).
 */
export function stampAfter(env: DomainEnv, previous: string | undefined): string {
  const now = env.services.clock.now();
  const last = previous === undefined ? Number.NEGATIVE_INFINITY : Date.parse(previous);
  return new Date(Number.isNaN(last) ? now : Math.max(now, last + 1)).toISOString();
}
