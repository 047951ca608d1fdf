/**
 * Leader election on a lease row in PostgreSQL. A standby polls to take the lease; the leader renews it every
 * renew interval and also keeps a local deadline on the monotonic clock (start of its last successful renewal +
 * lease - a fifth of the lease). When the deadline passes, whatever the reason (the database unreachable, the
 * process paused, an event loop blocked), the leader steps down at once, before the lease can expire in the
 * database and a standby take it. The fence (fence.ts) guards every write of a term in case a step-down comes late.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { HaSettings } from './config-schema.js';
import { LeaseDatabaseError, leaseDatabaseError } from './errors.js';
import { LeaderFence, type Term } from './fence.js';
import { LeaseConnection } from './lease-connection.js';
import {
  ACQUIRE_FIRST_SQL,
  ACQUIRE_SQL,
  CREATE_LEASE_TABLE_SQL,
  LEASE_TABLE_PRESENT_SQL,
  READ_LEASE_SQL,
  RELEASE_SQL,
  RENEW_SQL,
  type LeaseRow,
} from './lease-sql.js';

export interface LeaderView {
  readonly instance: string;
  /** When the term began, by the database clock (ISO 8601). */
  readonly since: string;
  readonly epoch: number;
}

export interface ElectorStatus {
  readonly role: 'leader' | 'standby';
  readonly instance: string;
  /** The current leader as last seen; null when none leads or the database cannot be reached. */
  readonly leader: LeaderView | null;
  /** Why the last lease statement failed (one line, no password); null once one succeeds. */
  readonly lastError: string | null;
}

export interface ElectorLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface ElectorOptions {
  /** state.url (postgres://...), password resolved. */
  readonly url: string;
  readonly settings: HaSettings;
  /** Extra fields stored with the lease for operators (version...); hostname and pid are always added. */
  readonly info?: Readonly<Record<string, unknown>>;
  /** A term began: start the jobs. Called after the lease is taken. */
  readonly onElected?: (epoch: number) => void;
  /** The term ended (taken over, deadline passed, stopped): stop the jobs at once. */
  readonly onLost?: (reason: string) => void;
  readonly log?: ElectorLog;
  /**
   * Whether this instance should take a free lease at once (the default). When it answers false (an office instance
   * the company is not assigned to), a lease is taken only once it has been free for `orphanGraceMs`: the assigned
   * instance takes it first, and a company nobody claims is still run.
   */
  readonly claim?: () => boolean;
  /** How long a lease must have been free before an unclaimed one is taken; the lease by default. */
  readonly orphanGraceMs?: number;
}

const silentLog: ElectorLog = { info: () => undefined, warn: () => undefined };

export class Elector {
  /** Refuses every write unless this instance holds the current term; hand it to the state store. */
  readonly fence: LeaderFence;

  readonly #options: ElectorOptions;
  readonly #settings: HaSettings;
  readonly #log: ElectorLog;
  readonly #processId = randomUUID();
  readonly #marginMs: number;
  readonly #connection: LeaseConnection;
  #running = false;
  #tableReady = false;
  #term: Term | null = null;
  #deadline = 0;
  #leader: LeaderView | null = null;
  #lastError: string | null = null;
  #lastPermanent: LeaseDatabaseError | null = null;
  #tickTimer: NodeJS.Timeout | undefined;
  #deadlineTimer: NodeJS.Timeout | undefined;
  #inFlight: Promise<void> | null = null;
  #tickAgain = false;
  /** When this process last began to stand by (monotonic): an unclaimed first term waits the grace from here. */
  #standbySince = performance.now();

  constructor(options: ElectorOptions) {
    this.#options = options;
    this.#settings = options.settings;
    this.#log = options.log ?? silentLog;
    this.#marginMs = Math.floor(options.settings.leaseMs / 5);
    this.#connection = new LeaseConnection({
      url: options.url,
      timeoutMs: Math.max(250, Math.floor(options.settings.leaseMs / 4)),
      applicationName: `supply-sync ha ${options.settings.instance}`.slice(0, 63),
      onRelease: () => this.#wake(),
    });
    this.fence = new LeaderFence(() => this.#term);
  }

  /**
   * Creates the lease table if needed and makes the first attempt to lead. Rejects only on an error that needs a
   * fix (wrong credentials, no such database, no permission); an unreachable database leaves this instance a
   * standby that keeps trying, with the reason in status().
   */
  async start(): Promise<void> {
    if (this.#running) return;
    this.#running = true;
    await this.#runTick();
    const permanent = this.#lastPermanent;
    if (permanent !== null) {
      await this.stop();
      throw permanent;
    }
  }

  /** Ends the term (onLost, then the lease is released so a standby takes over at once) and closes the session. */
  async stop(): Promise<void> {
    this.#running = false;
    clearTimeout(this.#tickTimer);
    await this.#inFlight?.catch(() => undefined);
    const term = this.#term;
    if (term !== null) {
      this.#lose('stopped: lease released');
      try {
        await this.#connection.query(RELEASE_SQL, [term.epoch, term.holder]);
        this.#log.info({ epoch: term.epoch }, 'leader lease released');
      } catch (error) {
        this.#log.warn({ err: messageOf(error) }, 'leader lease not released; it expires on its own');
      }
    }
    await this.#connection.close();
  }

  /**
   * Ends the term now: a write of it was refused by the fence (the lease was taken or ran out in the database),
   * whatever the local deadline says. The next attempt to lead comes one poll interval later.
   */
  stepDown(reason: string): void {
    this.#lose(reason);
  }

  /**
   * Ends the term and releases the lease at once while this elector keeps running as a standby, so that the
   * instance a company is assigned to takes it (woken by the release). The caller stops the term's jobs first.
   * True when the lease was released; false when there was no term, the term is no longer `expected` (lost and
   * won again while the caller stopped the jobs: that term's jobs did not reach a checkpoint for it), or the
   * release failed (the lease then expires).
   */
  async handOver(reason: string, expected?: Term): Promise<boolean> {
    const term = this.#term;
    if (term === null || !this.#running) return false;
    if (expected !== undefined && term !== expected) return false;
    this.#lose(reason);
    try {
      await this.#connection.query(RELEASE_SQL, [term.epoch, term.holder]);
      this.#log.info({ epoch: term.epoch, reason }, 'leader lease handed over');
      return true;
    } catch (error) {
      this.#log.warn({ err: messageOf(error) }, 'leader lease not handed over; it expires on its own');
      return false;
    }
  }

  /** The claim changed (see ElectorOptions.claim): a standby tries at once instead of at its next poll. */
  retry(): void {
    this.#wake();
  }

  /** The term this instance holds now, or null. */
  term(): Term | null {
    return this.#term;
  }

  isLeader(): boolean {
    return this.#term !== null;
  }

  status(): ElectorStatus {
    return {
      role: this.#term === null ? 'standby' : 'leader',
      instance: this.#settings.instance,
      leader: this.#leader,
      lastError: this.#lastError,
    };
  }

  async #runTick(): Promise<void> {
    if (!this.#running) return;
    if (this.#inFlight !== null) {
      this.#tickAgain = true;
      return;
    }
    const startedAt = performance.now();
    this.#inFlight = this.#tick();
    await this.#inFlight;
    this.#inFlight = null;
    if (!this.#running) return;
    const again = this.#tickAgain && this.#term === null;
    this.#tickAgain = false;
    const interval = this.#term === null ? this.#settings.pollIntervalMs : this.#settings.renewIntervalMs;
    const delay = again ? 0 : Math.max(0, interval - (performance.now() - startedAt));
    clearTimeout(this.#tickTimer);
    this.#tickTimer = setTimeout(() => void this.#runTick(), delay);
  }

  async #tick(): Promise<void> {
    try {
      if (!this.#tableReady) {
        const [table] = await this.#connection.query<{ present: boolean }>(LEASE_TABLE_PRESENT_SQL);
        if (table?.present !== true) await this.#connection.transaction(CREATE_LEASE_TABLE_SQL);
        this.#tableReady = true;
      }
      if (this.#term === null) await this.#tryAcquire();
      else await this.#renew(this.#term);
      this.#lastError = null;
      this.#lastPermanent = null;
    } catch (error) {
      const failure = leaseDatabaseError(this.#options.url, error);
      if (this.#lastError !== failure.message) this.#log.warn({ code: failure.code }, failure.message);
      this.#lastError = failure.message;
      this.#lastPermanent = failure.permanent ? failure : null;
      // Who leads is unknown while the database cannot be read; none can lead past its own deadline anyway.
      if (this.#term === null) this.#leader = null;
    }
  }

  async #tryAcquire(): Promise<void> {
    const sentAt = performance.now();
    const info = JSON.stringify({
      hostname: hostname(),
      pid: process.pid,
      ...this.#options.info,
    });
    const graceMs = this.#claimed() ? 0 : (this.#options.orphanGraceMs ?? this.#settings.leaseMs);
    const taken = await this.#acquire(
      [this.#settings.instance, this.#processId, info, this.#settings.leaseMs],
      graceMs,
    );
    if (taken === undefined) return;
    if (!this.#running) {
      // stop() began while the statement ran: hand the term straight back.
      await this.#connection.query(RELEASE_SQL, [taken.epoch, taken.holder]);
      return;
    }
    const term: Term = { epoch: Number(taken.epoch), holder: taken.holder };
    this.#term = term;
    this.#leader = leaderView(taken);
    this.#extendDeadline(sentAt);
    this.#log.info({ epoch: term.epoch, instance: term.holder }, 'elected leader');
    this.#notify(() => this.#options.onElected?.(term.epoch));
  }

  /** The lease row when this process took it; else the standby's view of who leads is refreshed. */
  async #acquire(params: readonly unknown[], graceMs: number): Promise<LeaseRow | undefined> {
    const [taken] = await this.#connection.query<LeaseRow>(ACQUIRE_SQL, [...params, graceMs]);
    if (taken !== undefined) return taken;
    const [current] = await this.#connection.query<LeaseRow>(READ_LEASE_SQL);
    if (current === undefined && performance.now() - this.#standbySince >= graceMs) {
      // No row yet: the first term ever (another instance's first term may win the insert).
      const [first] = await this.#connection.query<LeaseRow>(ACQUIRE_FIRST_SQL, params);
      if (first !== undefined) return first;
    }
    this.#leader = current?.live === true ? leaderView(current) : null;
    return undefined;
  }

  async #renew(term: Term): Promise<void> {
    if (this.#checkDeadline()) return;
    const sentAt = performance.now();
    const renewed = await this.#connection.query<LeaseRow>(RENEW_SQL, [
      term.epoch,
      term.holder,
      this.#settings.leaseMs,
    ]);
    if (this.#term !== term) return;
    if (renewed.length === 0) {
      this.#lose(`lease of term ${term.epoch} was taken over or expired in the database`);
      return;
    }
    this.#extendDeadline(sentAt);
  }

  /** The database extended the lease from some moment after `sentAt`: count from `sentAt`, the safe side. */
  #extendDeadline(sentAt: number): void {
    this.#deadline = sentAt + this.#settings.leaseMs - this.#marginMs;
    this.#armDeadline();
  }

  #armDeadline(): void {
    if (this.#checkDeadline()) return;
    clearTimeout(this.#deadlineTimer);
    // Node's timers may fire a fraction of a millisecond early by performance.now(): re-armed until it has passed.
    this.#deadlineTimer = setTimeout(() => this.#armDeadline(), this.#deadline - performance.now() + 1);
  }

  /** Steps down if the local deadline has passed; true when it did. */
  #checkDeadline(): boolean {
    if (this.#term === null || performance.now() < this.#deadline) return false;
    const cause = this.#lastError === null ? 'the lease was not renewed in time' : this.#lastError;
    this.#lose(`lease deadline passed without a renewal (${cause})`);
    return true;
  }

  #lose(reason: string): void {
    const term = this.#term;
    if (term === null) return;
    this.#term = null;
    this.#leader = null;
    this.#standbySince = performance.now();
    clearTimeout(this.#deadlineTimer);
    this.#log.warn({ epoch: term.epoch, reason }, 'leadership lost');
    this.#notify(() => this.#options.onLost?.(reason));
    if (this.#running && this.#inFlight === null) {
      clearTimeout(this.#tickTimer);
      this.#tickTimer = setTimeout(() => void this.#runTick(), this.#settings.pollIntervalMs);
    }
  }

  /** A release notification: a standby tries at once. */
  #wake(): void {
    if (!this.#running || this.#term !== null) return;
    clearTimeout(this.#tickTimer);
    void this.#runTick();
  }

  #claimed(): boolean {
    try {
      return this.#options.claim?.() ?? true;
    } catch {
      return true;
    }
  }

  #notify(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.#log.warn({ err: messageOf(error) }, 'leadership callback failed');
    }
  }
}

function leaderView(row: LeaseRow): LeaderView {
  return { instance: row.holder, since: new Date(row.acquired_at).toISOString(), epoch: Number(row.epoch) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
