/**
 * What one process of an office does for all of them (the morning report), claimed in the office's own PostgreSQL
 * database: two processes that briefly disagree on who is alive cannot both claim it. Only a live member claims. A
 * claim outlives its process: another instance takes it over only once the claimant is no longer among the live
 * members (see membership.ts) and the duty is not done, and it takes over the claim's token with it, so that what
 * the duty sends (a Message-ID) is the same whoever sends it. Liveness is judged by the database clock.
 */
import { randomUUID } from 'node:crypto';
import type { LeaseConnection } from './lease-connection.js';
import { CREATE_MEMBERS_TABLE_SQL, MEMBERS_TABLE } from './membership-sql.js';

export const DUTIES_TABLE = 'supply_sync_office_duties';

const CREATE_DUTIES_TABLE_SQL = [
  ...CREATE_MEMBERS_TABLE_SQL,
  `CREATE TABLE IF NOT EXISTS ${DUTIES_TABLE} (
    duty text PRIMARY KEY,
    instance text NOT NULL,
    token text NOT NULL,
    claimed_at timestamptz NOT NULL,
    done_at timestamptz
  )`,
] as const;
const DUTIES_TABLE_PRESENT_SQL = `SELECT to_regclass('${DUTIES_TABLE}') IS NOT NULL AS present`;

const LIVE_MEMBER = (instance: string): string =>
  `EXISTS (SELECT 1 FROM ${MEMBERS_TABLE} m WHERE m.instance = ${instance} AND m.expires_at > clock_timestamp())`;

/**
 * $1 duty, $2 instance, $3 a new token. Returns the claim's token when this instance holds the duty now: it claimed
 * it, held it already, or took it over from an instance that is gone; no row while a live instance holds it, once it
 * is done, or while this instance is not a live member itself.
 */
const CLAIM_SQL = `
  INSERT INTO ${DUTIES_TABLE} AS d (duty, instance, token, claimed_at)
  SELECT $1, $2, $3, now() WHERE ${LIVE_MEMBER('$2')}
  ON CONFLICT (duty) DO UPDATE SET instance = EXCLUDED.instance, claimed_at = EXCLUDED.claimed_at
  WHERE d.done_at IS NULL AND (d.instance = EXCLUDED.instance OR NOT ${LIVE_MEMBER('d.instance')})
  RETURNING token`;

/** $1 duty, $2 instance. Marks the duty done when this instance holds it: a row then, none otherwise. */
const DONE_SQL = `
  UPDATE ${DUTIES_TABLE} SET done_at = coalesce(done_at, now()) WHERE duty = $1 AND instance = $2
  RETURNING instance`;

/** $1 duty: who holds it and whether it is done, when a claim was not given. */
const HOLDER_SQL = `SELECT instance, done_at IS NOT NULL AS done, ${LIVE_MEMBER('d.instance')} AS live
  FROM ${DUTIES_TABLE} d WHERE duty = $1`;

/** A day's duty older than this is history: removed so the table stays small. */
const PRUNE_SQL = `DELETE FROM ${DUTIES_TABLE} WHERE claimed_at < now() - interval '60 days'`;

/**
 * What a claim found. Held: this instance holds the duty, and `token` is the claim's, the same for whoever held it
 * before. Not held: `holder` holds it (another live instance, or this one while it is not a live member itself:
 * its heartbeats lapsed), or no one does while this one is not live; `done` once it is done.
 */
export type DutyClaim =
  | { readonly held: true; readonly token: string }
  | {
      readonly held: false;
      readonly holder: string | null;
      readonly done: boolean;
      /** Whether the holder is a live member now (false for this instance while it is not live itself). */
      readonly holderLive: boolean;
    };

export class OfficeDuties {
  readonly #connection: LeaseConnection;
  readonly #instance: string;
  #tableReady = false;

  /** `connection`: a session of the office's database (the membership's); `instance`: this instance's name. */
  constructor(connection: LeaseConnection, instance: string) {
    this.#connection = connection;
    this.#instance = instance;
  }

  /** This instance's name, as its claims are recorded. */
  get instance(): string {
    return this.#instance;
  }

  /** Claims `duty` for this instance; not held while another live instance holds it, or once it is done. */
  async claim(duty: string): Promise<DutyClaim> {
    await this.#ready();
    const [row] = await this.#connection.query<{ token: string }>(CLAIM_SQL, [
      duty,
      this.#instance,
      randomUUID(),
    ]);
    if (row !== undefined) return { held: true, token: row.token };
    const [holder] = await this.#connection.query<{ instance: string; done: boolean; live: boolean }>(
      HOLDER_SQL,
      [duty],
    );
    return {
      held: false,
      holder: holder?.instance ?? null,
      done: holder?.done === true,
      holderLive: holder?.live === true,
    };
  }

  /** Records the duty done (no one takes it over any more); false when this instance does not hold it. */
  async done(duty: string): Promise<boolean> {
    await this.#ready();
    const rows = await this.#connection.query<{ instance: string }>(DONE_SQL, [duty, this.#instance]);
    return rows.length > 0;
  }

  /** The table is made (with the members', which a claim reads) at first use; rejects with a LeaseDatabaseError. */
  async #ready(): Promise<void> {
    if (this.#tableReady) return;
    const [table] = await this.#connection.query<{ present: boolean }>(DUTIES_TABLE_PRESENT_SQL);
    if (table?.present !== true) await this.#connection.transaction(CREATE_DUTIES_TABLE_SQL);
    await this.#connection.query(PRUNE_SQL);
    this.#tableReady = true;
  }
}
