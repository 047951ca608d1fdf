/**
 * Every statement on the leader lease, PostgreSQL dialect with $n placeholders. One row (id = 1) holds the current
 * term. Expiry is always judged by the database clock (now(), clock_timestamp()), never by an instance's clock, so
 * clock skew between machines cannot give two instances the lease.
 */

export const LEASE_TABLE = 'supply_sync_leader';

/** Notified when a leader releases its lease, so a standby takes it at once instead of at its next poll. */
export const RELEASE_CHANNEL = 'supply_sync_leader_released';

/**
 * The table, created idempotently by every instance at start (not a versioned state migration: election must work
 * before and apart from the state schema, and the table is the election's alone). A later change is an
 * `ALTER TABLE ... ADD COLUMN IF NOT EXISTS` appended here. The transaction-scoped advisory lock serialises
 * concurrent first starts, which would otherwise race on the catalog ("duplicate key ... pg_type").
 */
export const CREATE_LEASE_TABLE_SQL = [
  `SELECT pg_advisory_xact_lock(hashtext('${LEASE_TABLE}'))`,
  `CREATE TABLE IF NOT EXISTS ${LEASE_TABLE} (
    id integer PRIMARY KEY CHECK (id = 1),
    epoch bigint NOT NULL,
    holder text NOT NULL,
    holder_process text NOT NULL,
    holder_info jsonb NOT NULL DEFAULT '{}',
    acquired_at timestamptz NOT NULL,
    renewed_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
  )`,
] as const;

/**
 * Whether the table is already there: checked before CREATE TABLE IF NOT EXISTS, which needs CREATE on the schema
 * even when the table exists, so that a user granted only the table's rows can run an instance.
 */
export const LEASE_TABLE_PRESENT_SQL = `SELECT to_regclass('${LEASE_TABLE}') IS NOT NULL AS present`;

/** Columns every lease statement returns, typed as LeaseRow. */
const ROW = `epoch::text AS epoch, holder, holder_info, acquired_at, expires_at, expires_at > now() AS live`;

/**
 * Takes the lease when it is expired, or already held by this very process, and starts a new term (epoch + 1)
 * every time. Returns a row only when taken. $1 holder (the instance name), $2 this process's random id, $3
 * holder_info, $4 the lease in milliseconds, $5 how long the lease must have been expired already (0: at once; an
 * office instance that is not the company's assigned one waits, see ElectorOptions.claim, and does not take back
 * the lease it has just handed over as its own). A same-named instance in
 * another process (a duplicate name, or a restart) waits for expiry, so two processes never share a term.
 *
 * The takeover locks the row FOR UPDATE first, which conflicts with the fence's FOR KEY SHARE (FENCE_SQL): it waits
 * until every transaction that passed the old term's fence has committed or rolled back. Only a takeable row is
 * locked, so a standby polling a live lease waits for nothing and holds up no renewal. The condition is repeated in
 * the UPDATE: under READ COMMITTED, a row changed while the lock was awaited is judged again in its newest version.
 *
 * The FOR UPDATE must stay: it also makes PostgreSQL record the takeover as a key update, so a fence that comes
 * after it follows the row to the new term and refuses. A bare UPDATE of these columns is a non-key update, after
 * which a fence could settle on the old version and pass with the old epoch (a same-process re-acquisition would
 * then admit an old-term write inside the new term).
 */
export const ACQUIRE_SQL = `
  WITH takeable AS (
    SELECT id FROM ${LEASE_TABLE}
    WHERE id = 1
      AND (
        expires_at <= now() - $5::bigint * interval '1 millisecond'
        OR (holder = $1 AND holder_process = $2 AND $5::bigint = 0)
      )
    FOR UPDATE
  )
  UPDATE ${LEASE_TABLE} AS lease SET
    epoch = lease.epoch + 1,
    holder = $1,
    holder_process = $2,
    holder_info = $3::jsonb,
    acquired_at = now(),
    renewed_at = now(),
    expires_at = now() + $4::bigint * interval '1 millisecond'
  FROM takeable
  WHERE lease.id = takeable.id
    AND (
      lease.expires_at <= now() - $5::bigint * interval '1 millisecond'
      OR (lease.holder = $1 AND lease.holder_process = $2 AND $5::bigint = 0)
    )
  RETURNING ${ROW}`;

/** The first term ever, when the table has no row yet. $1 to $4 of ACQUIRE_SQL; a row only when taken. */
export const ACQUIRE_FIRST_SQL = `
  INSERT INTO ${LEASE_TABLE}
    (id, epoch, holder, holder_process, holder_info, acquired_at, renewed_at, expires_at)
  VALUES (1, 1, $1, $2, $3::jsonb, now(), now(), now() + $4::bigint * interval '1 millisecond')
  ON CONFLICT (id) DO NOTHING
  RETURNING ${ROW}`;

/**
 * Extends the current term. Only the term's own holder, and only while the lease has not run out: an expired lease
 * is never revived, since a standby may be taking it. $1 epoch, $2 holder, $3 the lease in milliseconds.
 *
 * The lease is judged by clock_timestamp(), the time the row is read, not now(), the time the statement's transaction
 * began: a renewal delayed (or waiting on the row) past the expiry would otherwise still see the lease live and
 * revive it. The new expiry counts from now(), the earlier of the two, so it errs short.
 */
export const RENEW_SQL = `
  UPDATE ${LEASE_TABLE} SET renewed_at = now(), expires_at = now() + $3::bigint * interval '1 millisecond'
  WHERE id = 1 AND epoch = $1::bigint AND holder = $2 AND expires_at > clock_timestamp()
  RETURNING ${ROW}`;

/** Ends the term at once and wakes the standbys. $1 epoch, $2 holder. */
export const RELEASE_SQL = `
  WITH released AS (
    UPDATE ${LEASE_TABLE} SET expires_at = now(), renewed_at = now()
    WHERE id = 1 AND epoch = $1::bigint AND holder = $2
    RETURNING epoch
  )
  SELECT pg_notify('${RELEASE_CHANNEL}', epoch::text) FROM released`;

/** The current term, whoever holds it, for status. */
export const READ_LEASE_SQL = `SELECT ${ROW} FROM ${LEASE_TABLE} WHERE id = 1`;

/**
 * The fence: the first statement of every leader-only write transaction. $1 epoch, $2 holder. Returns the row
 * with `valid` true only when the lease is still this term's and unexpired.
 *
 * Why FOR KEY SHARE makes the check hold until COMMIT, not just at the moment it runs: the row lock is kept to the
 * end of the transaction, and it conflicts with the FOR UPDATE that every takeover (ACQUIRE_SQL) takes first. So a
 * new leader waits for every transaction that passed the old term's fence to commit or roll back, and only then
 * writes epoch + 1. Every write of the old term is therefore ordered before the new term begins; the old leader's
 * next transaction then reads the new epoch and is refused. A renewal (RENEW_SQL) changes no key column, so its
 * lock (FOR NO KEY UPDATE) does not conflict with FOR KEY SHARE: a leader keeps renewing while its own long
 * transactions run. (With FOR SHARE, a renewal waited for them and a live leader could lose its lease.)
 * Under READ COMMITTED, a fence that waits behind an in-flight takeover re-reads the updated row and fails; under
 * REPEATABLE READ or SERIALIZABLE it fails with a serialization error instead. Both refuse.
 *
 * clock_timestamp() rather than now(): now() is the transaction's start, which can be long before this statement.
 * `remaining_ms` is the lease time left by the database clock: the headroom a write of the term may still use.
 */
export const FENCE_SQL = `
  SELECT epoch::text AS epoch, holder,
    (epoch = $1::bigint AND holder = $2 AND expires_at > clock_timestamp()) AS valid,
    (extract(epoch FROM expires_at - clock_timestamp()) * 1000)::float8 AS remaining_ms
  FROM ${LEASE_TABLE} WHERE id = 1
  FOR KEY SHARE`;

/** A lease row as ACQUIRE_SQL, RENEW_SQL and READ_LEASE_SQL return it. */
export interface LeaseRow {
  readonly epoch: string;
  readonly holder: string;
  readonly holder_info: unknown;
  readonly acquired_at: Date;
  readonly expires_at: Date;
  readonly live: boolean;
}
