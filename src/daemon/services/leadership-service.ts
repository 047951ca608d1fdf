/**
 * Leader election where instances share a PostgreSQL state (state.url): the elector runs on every instance; the one
 * that wins a term starts the jobs group (scheduler, webhook dispatch, housekeeping) and the others stand by. From
 * its start the state store's write transactions are fenced: while this instance holds no term every write of the
 * store is refused, and during a term each write transaction checks in the database that the term is still current,
 * so a leader that was paused or cut off and wakes up after a takeover commits nothing.
 */
import { boundTerm, Elector, runInTerm, termFence, type HaSettings, type Term } from '../../ha/index.js';
import { LeadershipLostError, type LeaseGrant, type SyncSqlPort } from '../../state/index.js';
import type { LeadershipStatus } from '../../ops/index.js';
import type { Environment } from './environment.js';
import { packageVersion } from '../package/version.js';
import type { ServiceGroup } from './service-group.js';
import type { Service, StopOptions } from './service.js';

/** How long the jobs of a lost term get to end: their writes are refused already, so only reads can be under way. */
const STOP_AFTER_LOSS = { timeoutMs: 5_000 };
/** How long the jobs get to reach a checkpoint when the term is handed to another instance. */
const STOP_FOR_HANDOVER = { timeoutMs: 30_000 };

export interface LeadershipOptions {
  readonly env: Environment;
  /** state.url, password resolved. */
  readonly url: string;
  readonly settings: HaSettings;
  /** Started when a term is won, stopped when it is lost. */
  readonly jobs: ServiceGroup;
  /**
   * Called when a term is won, before the jobs start: the daemon reads its config file again, so mappings reloaded
   * on an earlier leader reach this one's runs. Its errors are logged; the jobs start all the same.
   */
  readonly onTerm?: () => void;
  /** Whether this instance should take a free lease at once (see ElectorOptions.claim); always by default. */
  readonly claim?: () => boolean;
}

/** What an office steers of one company's leadership. */
export interface CompanyLead {
  /** Whether this instance runs the company's jobs now. */
  leads(): boolean;
  /** Lets the jobs reach a checkpoint, then releases the lease for the instance the company is assigned to. */
  handOver(reason: string): Promise<void>;
  /** The company became this instance's: try for its lease now. */
  claimed(): void;
}

export class LeadershipService implements Service, CompanyLead {
  readonly name = 'leader election';
  #elector: Elector | undefined;
  /** The term this instance holds; null refuses every write. */
  #term: Term | null = null;

  constructor(private readonly options: LeadershipOptions) {}

  async start(): Promise<void> {
    if (this.#elector !== undefined) return;
    const { env, url, settings } = this.options;
    env.state.setFence({ check: (port) => this.#check(port) });
    const elector = new Elector({
      url,
      settings,
      info: { version: packageVersion() },
      log: env.logger,
      onElected: () => this.#elected(elector),
      onLost: (reason) => this.#lost(reason),
      ...(this.options.claim === undefined ? {} : { claim: this.options.claim }),
    });
    this.#elector = elector;
    try {
      await elector.start();
    } catch (error) {
      this.#elector = undefined;
      throw error;
    }
  }

  /** The jobs end first while the term is still held (they reach a checkpoint), then the lease is released. */
  async stop(options: StopOptions): Promise<void> {
    const elector = this.#elector;
    this.#elector = undefined;
    let jobsError: unknown;
    await this.options.jobs.stop(options).catch((error: unknown) => {
      jobsError = error;
    });
    await elector?.stop();
    this.#term = null;
    if (jobsError !== undefined) throw jobsError;
  }

  /**
   * A job's write was refused by the fence: the term is over even if the local deadline has not passed. A refusal
   * of work bound to an earlier term says nothing about the current one, which stays.
   */
  stepDown(reason: string): void {
    const bound = boundTerm();
    if (bound !== undefined && !sameTerm(bound, this.#term)) return;
    if (this.#elector?.isLeader() === true) this.#elector.stepDown(reason);
  }

  leads(): boolean {
    return this.#elector?.isLeader() === true;
  }

  async handOver(reason: string): Promise<void> {
    const elector = this.#elector;
    const term = elector?.term() ?? null;
    if (elector === undefined || term === null) return;
    const { env, jobs } = this.options;
    env.logger.info(
      { reason },
      'handing the jobs over: they stop at a checkpoint, then the lease is released',
    );
    await jobs.stop(STOP_FOR_HANDOVER).catch((error: unknown) => {
      env.logger.error({ err: error }, 'the jobs did not all stop before the hand-over');
    });
    // Lost (and maybe won again) while the jobs stopped: a new term's jobs did not stop for this hand-over.
    if (elector.term() !== term) return;
    // Released even when the company was assigned back meanwhile: a run the stop did not end stays bound to this
    // term, so the jobs start again only in a new one (taken at once when claimed), where its writes are refused.
    await elector.handOver(reason, term);
  }

  claimed(): void {
    this.#elector?.retry();
  }

  /** Runs `work` bound to the term held now (see src/ha job-term.ts); work already bound keeps its own term. */
  inCurrentTerm<T>(work: () => Promise<T>): Promise<T> {
    const term = this.#term;
    return boundTerm() !== undefined || term === null ? work() : runInTerm(term, work);
  }

  status(): LeadershipStatus {
    const { instance } = this.options.settings;
    const status = this.#elector?.status();
    return {
      role: status?.role ?? 'standby',
      instance,
      leader: status?.leader ?? null,
      lastError: status?.lastError ?? null,
    };
  }

  /** Fences a write to the term its work began in, or to the current one for work bound to none. */
  #check(port: SyncSqlPort): LeaseGrant {
    const current = this.#term;
    const term = boundTerm() ?? current;
    if (term === null) {
      throw new LeadershipLostError(
        'not_leader',
        'this instance is not the leader: its jobs may not write',
        null,
      );
    }
    if (!sameTerm(term, current)) {
      throw new LeadershipLostError(
        'lease_taken',
        `leadership lost: work of term ${term.epoch} may not write in ${current === null ? 'no term' : `term ${current.epoch}`}`,
        term.epoch,
      );
    }
    return termFence(term).check(port);
  }

  #elected(elector: Elector): void {
    const term = elector.term();
    if (term === null) return;
    this.#term = term;
    runInTerm(term, () => this.#startTerm(term));
  }

  /**
   * Closes the runs earlier terms left open, reads the config file again (onTerm), then starts the jobs: everything
   * they start is bound to `term`.
   */
  #startTerm(term: Term): void {
    const { env, jobs } = this.options;
    try {
      // The runs of earlier terms that have no end were cut off (their leader died or lost its term).
      const closed = env.state.runs.closeInterrupted();
      if (closed > 0)
        env.logger.info({ runs: closed, epoch: term.epoch }, 'runs of an earlier term closed as interrupted');
    } catch (error) {
      env.logger.error(
        { err: error, epoch: term.epoch },
        'the runs of earlier terms could not be closed; stepping down',
      );
      this.stepDown('the runs of earlier terms could not be closed');
      return;
    }
    try {
      this.options.onTerm?.();
    } catch (error) {
      env.logger.error(
        { err: error, epoch: term.epoch },
        'the config file could not be read again on winning the term: the jobs run with the config they have',
      );
    }
    jobs.start().catch((error: unknown) => {
      env.logger.error({ err: error, epoch: term.epoch }, 'the jobs did not start; stepping down');
      this.stepDown('the jobs did not start');
    });
  }

  #lost(reason: string): void {
    this.#term = null;
    const { env, jobs } = this.options;
    env.logger.warn({ reason }, 'standing by: the jobs stop');
    jobs.stop(STOP_AFTER_LOSS).catch((error: unknown) => {
      env.logger.error({ err: error }, 'the jobs of a lost term failed to stop');
    });
  }
}

function sameTerm(a: Term, b: Term | null): boolean {
  return b !== null && a.epoch === b.epoch && a.holder === b.holder;
}
