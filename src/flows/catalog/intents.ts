/**
 * Write-ahead intents: before a product batch, an availability call or a price batch is sent, each key is stored
 * as pending with the hash it will have, in its own committed transaction. The API's answer confirms it (the
 * hash moves to the kind's stored hashes) or clears it (the item was refused; the reason goes to a dead letter).
 *
 * Why: the contract has no call that lists a supplier's own products, so the stored hashes are the only record
 * of what the API holds. A process killed after the API accepted a send and before the answer was recorded left
 * no trace of it: a new product was then never removed when the ERP dropped it, and a value the ERP changed back
 * during the crash was never sent again. A pending key counts as present in the API (it gets a DELETE when the
 * ERP drops it; a 404 then means it never arrived) and as changed (it is sent again until an answer confirms it).
 *
 * Pending intents live in the state's hashes table under their own flow name (`<job>:<kind>:pending`), so they
 * commit in the same transactions as the hashes and need no schema change.
 */
import type { StateStore } from '../../state/index.js';
import { hashFlow, type HashKind, type PushContext } from './push-context.js';
import { loadStoredHashes } from './stored-hashes.js';

export function pendingFlow(job: string, kind: HashKind): string {
  return `${hashFlow(job, kind)}:pending`;
}

export function loadPending(state: StateStore, job: string, kind: HashKind): Map<string, string> {
  return loadStoredHashes(state, pendingFlow(job, kind));
}

/** Stores the intents in one committed transaction; call it before the send. */
export function recordIntents(
  ctx: PushContext,
  kind: HashKind,
  entries: readonly (readonly [key: string, hash: string])[],
): void {
  if (entries.length === 0) return;
  ctx.state.transaction(() => {
    ctx.state.hashes.setMany(pendingFlow(ctx.job, kind), entries);
  });
}

/** The API accepted these: their hashes become the stored ones. Call inside the answer's transaction. */
export function confirmIntents(
  ctx: PushContext,
  kind: HashKind,
  entries: readonly (readonly [key: string, hash: string])[],
): void {
  if (entries.length === 0) return;
  ctx.state.hashes.setMany(hashFlow(ctx.job, kind), entries);
  ctx.state.hashes.deleteMany(
    pendingFlow(ctx.job, kind),
    entries.map(([key]) => key),
  );
}

/**
 * The API refused this send: nothing of it remains, so its intent goes and the stored hash, if any, stays. An
 * intent of an earlier send that was never answered is put back, since the API may hold that one. Call inside the
 * answer's transaction, next to the dead letter that keeps the reason.
 */
export function clearIntent(
  ctx: PushContext,
  kind: HashKind,
  key: string,
  earlier: string | undefined,
): void {
  if (earlier === undefined) ctx.state.hashes.deleteMany(pendingFlow(ctx.job, kind), [key]);
  else ctx.state.hashes.setMany(pendingFlow(ctx.job, kind), [[key, earlier]]);
}

/** A key's stored hash and its intent both go (a deleted product, a price the ERP dropped). */
export function forgetKeys(ctx: PushContext, kind: HashKind, keys: readonly string[]): void {
  if (keys.length === 0) return;
  ctx.state.hashes.deleteMany(hashFlow(ctx.job, kind), keys);
  ctx.state.hashes.deleteMany(pendingFlow(ctx.job, kind), keys);
}
