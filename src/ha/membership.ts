/**
 * The live instances of an office sharing one set of companies, kept in a table of the office's own PostgreSQL
 * database: each instance writes a row that expires one lease after its last heartbeat, and reads who else is alive.
 * Membership only steers which instance tries for which company (see the office's assignment); the company's own
 * lease and fence decide who runs it, so two instances that briefly disagree on the members cannot both run one.
 * Expiry is judged by the database clock, as the lease's is.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { HaSettings } from './config-schema.js';
import { leaseDatabaseError } from './errors.js';
import { LeaseConnection } from './lease-connection.js';
import {
  CREATE_MEMBERS_TABLE_SQL,
  HEARTBEAT_SQL,
  LEAVE_SQL,
  LIVE_SQL,
  MEMBERS_CHANNEL,
  MEMBERS_TABLE,
  MEMBERS_TABLE_PRESENT_SQL,
  PRUNE_MEMBERS_SQL,
} from './membership-sql.js';
import { OfficeDuties } from './office-duties.js';

export interface MembershipOptions {
  /** The office's state.url, password resolved. */
  readonly url: string;
  readonly settings: HaSettings;
  /** The live members changed (names, sorted); also called with the first reading. */
  readonly onChange: (members: readonly string[]) => void;
  /**
   * The companies this process cannot run (their config failed here), published with each heartbeat so that the
   * others assign them elsewhere.
   */
  readonly cannotRun?: () => readonly string[];
  /** After every reading of the members, changed or not. */
  readonly onReading?: () => void;
  readonly log: { warn(fields: object, message: string): void; info(fields: object, message: string): void };
}

interface LiveRow {
  readonly instance: string;
  readonly cannot_run: unknown;
  readonly process: string;
  readonly expires_ms: number;
}

export class Membership {
  readonly #options: MembershipOptions;
  readonly #process = randomUUID();
  /** Whether another live process has this one's instance name, as last said. */
  #sharedName = false;
  /** When the rows of the other processes with this one's name expired, at the last reading. */
  #twinExpiries = new Map<string, number>();
  readonly #connection: LeaseConnection;
  #members: readonly string[] = [];
  #cannotRun: ReadonlyMap<string, readonly string[]> = new Map();
  /** What one instance does for all (the office report), claimed on the membership's session. */
  readonly duties: OfficeDuties;
  #timer: NodeJS.Timeout | undefined;
  #running = false;
  #tableReady = false;
  #lastError: string | null = null;
  #beat: Promise<void> | null = null;
  /** A notification came while a heartbeat ran: read again right after it, not one poll later. */
  #again = false;

  constructor(options: MembershipOptions) {
    this.#options = options;
    this.#connection = new LeaseConnection({
      url: options.url,
      timeoutMs: Math.max(250, Math.floor(options.settings.leaseMs / 4)),
      applicationName: `supply-sync office ${options.settings.instance}`.slice(0, 63),
      channel: MEMBERS_CHANNEL,
      onRelease: () => void this.#tick(),
    });
    this.duties = new OfficeDuties(this.#connection, options.settings.instance);
  }

  /** Joins (a first heartbeat); an unreachable database is retried every poll, with the reason in lastError. */
  async start(): Promise<void> {
    this.#running = true;
    await this.#tick();
  }

  /** Leaves at once (the others rebalance without waiting for the row to expire) and closes the session. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#timer);
    await this.#beat?.catch(() => undefined);
    await this.#connection.query(LEAVE_SQL, [this.#process]).catch(() => undefined);
    await this.#connection.close();
  }

  /** The live members as last read, this instance included once it has joined. */
  members(): readonly string[] {
    return this.#members;
  }

  lastError(): string | null {
    return this.#lastError;
  }

  #tick(): Promise<void> {
    if (!this.#running) return Promise.resolve();
    if (this.#beat !== null) {
      this.#again = true;
      return this.#beat;
    }
    this.#beat = this.#heartbeat().finally(() => {
      this.#beat = null;
      clearTimeout(this.#timer);
      const delay = this.#again ? 0 : this.#options.settings.pollIntervalMs;
      this.#again = false;
      if (this.#running) this.#timer = setTimeout(() => void this.#tick(), delay);
    });
    return this.#beat;
  }

  async #heartbeat(): Promise<void> {
    const { settings, url } = this.#options;
    try {
      if (!this.#tableReady) await this.#createTable();
      const cannotRun = [...new Set(this.#options.cannotRun?.() ?? [])].sort();
      const info = JSON.stringify({ hostname: hostname(), pid: process.pid, cannot_run: cannotRun });
      const [row] = await this.#connection.query<{ joined: boolean }>(HEARTBEAT_SQL, [
        this.#process,
        settings.instance,
        info,
        settings.leaseMs,
      ]);
      if (row?.joined === true) {
        await this.#connection.query(`SELECT pg_notify('${MEMBERS_CHANNEL}', 'joined')`);
        await this.#connection.query(PRUNE_MEMBERS_SQL);
      }
      const live = await this.#connection.query<LiveRow>(LIVE_SQL);
      this.#lastError = null;
      this.#warnSharedName(live);
      this.#publish(live);
      this.#options.onReading?.();
    } catch (error) {
      const failure = leaseDatabaseError(url, error);
      const message = officeWording(failure.message);
      if (this.#lastError !== message) this.#options.log.warn({ code: failure.code }, message);
      this.#lastError = message;
    }
  }

  /**
   * Two live processes with one name are one instance to the leases and the office's duties: both may run what
   * that name holds (the office report twice, say). Said when it starts and when it ends. Another process's row
   * counts once its expiry has moved on between two readings: the row of this process's own predecessor, killed
   * and restarted under the same name, stays live for a lease without being renewed.
   */
  #warnSharedName(live: readonly LiveRow[]): void {
    const { instance } = this.#options.settings;
    const twins = live.filter((row) => row.instance === instance && row.process !== this.#process);
    const renewed = twins.filter((row) => row.expires_ms > (this.#twinExpiries.get(row.process) ?? Infinity));
    this.#twinExpiries = new Map(twins.map((row) => [row.process, row.expires_ms]));
    const shared = renewed.length > 0;
    if (shared === this.#sharedName) return;
    this.#sharedName = shared;
    if (shared) {
      this.#options.log.warn(
        { instance, processes: renewed.length + 1 },
        'another live office process has this instance name: give each process its own ha.instance; until then ' +
          'both act as one (each may send the office report)',
      );
    } else this.#options.log.info({ instance }, 'this instance name is this process’s alone again');
  }

  async #createTable(): Promise<void> {
    const [table] = await this.#connection.query<{ present: boolean }>(MEMBERS_TABLE_PRESENT_SQL);
    if (table?.present !== true) await this.#connection.transaction(CREATE_MEMBERS_TABLE_SQL);
    this.#tableReady = true;
  }

  #publish(live: ReadonlyArray<{ instance: string; cannot_run: unknown }>): void {
    const members = [...new Set(live.map((row) => row.instance))].sort();
    const cannotRun = new Map<string, string[]>();
    for (const row of live) {
      const companies = Array.isArray(row.cannot_run)
        ? row.cannot_run.filter((c) => typeof c === 'string')
        : [];
      if (companies.length === 0) continue;
      cannotRun.set(
        row.instance,
        [...new Set([...(cannotRun.get(row.instance) ?? []), ...companies])].sort(),
      );
    }
    const seen = JSON.stringify([members, [...cannotRun]]);
    if (seen === JSON.stringify([this.#members, [...this.#cannotRun]])) return;
    this.#members = members;
    this.#cannotRun = cannotRun;
    this.#options.onChange(members);
  }

  /** The companies each live instance said it cannot run (instances that can run all are absent). */
  cannotRun(): ReadonlyMap<string, readonly string[]> {
    return this.#cannotRun;
  }
}

/** The lease's wording names state.url and the leader: said of the office's own database instead. */
function officeWording(message: string): string {
  const detail = message
    .replace(/^state\.url: /, '')
    .replace(
      /; no instance leads until it is back$/,
      '; until it is back, each office process takes only the companies whose lease stayed free for a whole lease',
    )
    .replace(/leader lease table/g, `office instances table (${MEMBERS_TABLE})`)
    .replace(
      /SELECT, INSERT and UPDATE on supply_sync_leader\b/g,
      `SELECT, INSERT, UPDATE and DELETE on ${MEMBERS_TABLE}`,
    )
    .replace(/supply_sync_leader\b/g, MEMBERS_TABLE);
  return `office instances, in the office file's state.url: ${detail}`;
}
