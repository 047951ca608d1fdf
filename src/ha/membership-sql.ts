/** The SQL of the office's live instances (membership.ts), in the office's own PostgreSQL database. */

export const MEMBERS_TABLE = 'supply_sync_members';
/** Notified when an instance joins or leaves, so the others rebalance at once instead of at their next poll. */
export const MEMBERS_CHANNEL = 'supply_sync_members_changed';

export const CREATE_MEMBERS_TABLE_SQL = [
  `SELECT pg_advisory_xact_lock(hashtext('${MEMBERS_TABLE}'))`,
  `CREATE TABLE IF NOT EXISTS ${MEMBERS_TABLE} (
    process text PRIMARY KEY,
    instance text NOT NULL,
    info jsonb NOT NULL DEFAULT '{}',
    joined_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  )`,
] as const;
export const MEMBERS_TABLE_PRESENT_SQL = `SELECT to_regclass('${MEMBERS_TABLE}') IS NOT NULL AS present`;

/**
 * $1 process, $2 instance, $3 info (host, pid and the companies it cannot run, kept current), $4 the lease in ms.
 * Returns whether the row is new (a join).
 */
export const HEARTBEAT_SQL = `
  INSERT INTO ${MEMBERS_TABLE} (process, instance, info, joined_at, expires_at)
  VALUES ($1, $2, $3::jsonb, now(), now() + $4::bigint * interval '1 millisecond')
  ON CONFLICT (process) DO UPDATE SET expires_at = EXCLUDED.expires_at, info = EXCLUDED.info
  RETURNING (xmax = 0) AS joined`;

/**
 * Every live process: its instance, the companies it said it cannot run (two processes may share a name), its id
 * and when its row expires (epoch ms: a row whose expiry moves on is renewed by a running process).
 */
export const LIVE_SQL = `SELECT instance, info->'cannot_run' AS cannot_run, process,
  (extract(epoch FROM expires_at) * 1000)::float8 AS expires_ms FROM ${MEMBERS_TABLE}
  WHERE expires_at > now() ORDER BY instance`;
/** Rows of instances gone for a day are only history: removed so the table stays small. */
export const PRUNE_MEMBERS_SQL = `DELETE FROM ${MEMBERS_TABLE} WHERE expires_at < now() - interval '1 day'`;
export const LEAVE_SQL = `WITH gone AS (DELETE FROM ${MEMBERS_TABLE} WHERE process = $1 RETURNING 1)
  SELECT pg_notify('${MEMBERS_CHANNEL}', 'left') FROM gone`;
