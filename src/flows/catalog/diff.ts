/** Desired state against the hashes of what the API accepted last time, and of what was sent unconfirmed. */
import type { DesiredSet } from './snapshot.js';

export interface Change<S> {
  key: string;
  hash: string;
  source: S;
  /** The stored hash this change replaces, undefined for a new key. */
  previous: string | undefined;
  /** The hash of a send whose answer was never recorded (see intents.ts): the API may hold it instead. */
  pending: string | undefined;
}

export interface Diff<S> {
  /** New or changed entries, sorted by key so batches are the same after a restart. */
  changed: Change<S>[];
  /** Keys the API holds or may hold (by our hashes and pending intents) that the ERP no longer has. */
  removed: string[];
}

const NONE: ReadonlyMap<string, string> = new Map();

/**
 * A key with a pending intent is always a change: whether the API applied that send is unknown, so it is sent
 * again (an idempotent upsert) to confirm it, even when the ERP went back to the stored hash in the meantime.
 */
export function diffAgainst<S>(
  desired: DesiredSet<S>,
  stored: ReadonlyMap<string, string>,
  pending: ReadonlyMap<string, string> = NONE,
): Diff<S> {
  const { keys, hashes, sources } = desired;
  const changed: Change<S>[] = [];
  let known = 0;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    const hash = hashes[i];
    const source = sources[i];
    if (key === undefined || hash === undefined || source === undefined) continue;
    const previous = stored.get(key);
    const pendingHash = pending.size === 0 ? undefined : pending.get(key);
    if (previous !== undefined) known += 1;
    if (previous !== hash || pendingHash !== undefined)
      changed.push({ key, hash, source, previous, pending: pendingHash });
  }
  changed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const removed: string[] = [];
  // Every stored key was met above unless the counts differ: only then look for the removed ones.
  if (known < stored.size) {
    for (const key of stored.keys()) {
      if (!desired.has(key)) removed.push(key);
    }
  }
  for (const key of pending.keys()) {
    if (!desired.has(key) && !stored.has(key)) removed.push(key);
  }
  removed.sort();
  return { changed, removed };
}

/** How many keys the API holds or may hold: stored hashes plus pending intents not among them. */
export function knownKeyCount(
  stored: ReadonlyMap<string, string>,
  pending: ReadonlyMap<string, string>,
): number {
  let count = stored.size;
  for (const key of pending.keys()) if (!stored.has(key)) count += 1;
  return count;
}
