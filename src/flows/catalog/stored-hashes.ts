/**
 * A flow's stored hashes, as `state.hashes.all(flow)` returns them, read in one concatenated string. At 100,000
 * rows, one array per row (what a row-by-row read allocates) is most of a diff's cost; one string split in place
 * is a fraction of it. This reads the state's `hashes` table directly; whenever the result cannot be trusted
 * (the query fails, or a key or hash holds a separator character so the row count does not match), it falls
 * back to `state.hashes.all`. On PostgreSQL it is `state.hashes.all` directly: the query is SQLite's, and a failed
 * statement there would abort the transaction it runs in.
 */
import type { StateStore } from '../../state/index.js';

const ROW = '\u001e';
const FIELD = '\u001d';

export function loadStoredHashes(state: StateStore, flow: string): Map<string, string> {
  if (state.backend !== 'sqlite') return state.hashes.all(flow);
  try {
    const row = state.db
      .prepare(
        `SELECT COUNT(*) AS n, group_concat(key || char(29) || hash, char(30)) AS rows FROM hashes WHERE flow = ?`,
      )
      .get(flow) as { n: number; rows: string | null } | undefined;
    if (row === undefined) return state.hashes.all(flow);
    const map = new Map<string, string>();
    if (row.n === 0 || row.rows === null) return row.n === 0 ? map : state.hashes.all(flow);
    const parts = row.rows.split(ROW);
    if (parts.length !== row.n) return state.hashes.all(flow);
    for (const part of parts) {
      const at = part.indexOf(FIELD);
      if (at < 0 || part.indexOf(FIELD, at + 1) >= 0) return state.hashes.all(flow);
      map.set(part.slice(0, at), part.slice(at + 1));
    }
    return map.size === row.n ? map : state.hashes.all(flow);
  } catch {
    return state.hashes.all(flow);
  }
}
