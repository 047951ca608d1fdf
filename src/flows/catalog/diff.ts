/** Desired state against the hashes of what the API accepted last time. */
import type { DesiredSet } from './snapshot.js';

export interface Change<S> {
  key: string;
  hash: string;
  source: S;
  /** The stored hash this change replaces, undefined for a new key. */
  previous: string | undefined;
}

export interface Diff<S> {
  /** New or changed entries, sorted by key so batches are the same after a restart. */
  changed: Change<S>[];
  /** Keys the API holds (by our hashes) that the ERP no longer has. */
  removed: string[];
}

export function diffAgainst<S>(desired: DesiredSet<S>, stored: ReadonlyMap<string, string>): Diff<S> {
  const { keys, hashes, sources } = desired;
  const changed: Change<S>[] = [];
  let known = 0;
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i];
    const hash = hashes[i];
    const source = sources[i];
    if (key === undefined || hash === undefined || source === undefined) continue;
    const previous = stored.get(key);
    if (previous !== undefined) known += 1;
    if (previous !== hash) changed.push({ key, hash, source, previous });
  }
  changed.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const removed: string[] = [];
  // Every stored key was met above unless the counts differ: only then look for the removed ones.
  if (known < stored.size) {
    for (const key of stored.keys()) {
      if (!desired.has(key)) removed.push(key);
    }
  }
  removed.sort();
  return { changed, removed };
}
