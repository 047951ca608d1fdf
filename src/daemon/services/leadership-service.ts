/**
 * Leader election where instances share a PostgreSQL state (state.url): the elector runs on every instance; the one
 * that wins a term starts the jobs group (scheduler, webhook dispatch, housekeeping) and the others stand by. From
 * its start the state store's write transactions are fenced: while this instance holds no term every write of the
 * store is refused, and during a term each write transaction checks in the database that the term is still current,
 * so a leader that was paused or cut off and wakes up after a takeover commits nothing.
 */
import {
  Elector,
  LeadershipLostError,
  termFence,
  type HaSettings,
  type SyncSqlPort,
  type WriteFence,
} from '../../ha/index.js';
import type { LeadershipStatus } from '../../ops/index.js';
import type { Environment } from './environment-service.js';
import { packageVersion } from '../version.js';
import type { ServiceGroup } from './service-group.js';
import type { Service, StopOptions } from './service.js';

/** How long the jobs of a lost term get to end: their writes are refused already, so only reads can be under way. */
const STOP_AFTER_LOSS = { timeoutMs: 5_000 };

export interface LeadershipOptions {
  readonly env: Environment;
  /** state.url, password resolved. */
  readonly url: string;
  readonly settings: HaSettings;
  /** Started when a term is won, stopped when it is lost. */
  readonly jobs: ServiceGroup;
}

export class LeadershipService implements Service {
  readonly name = 'leader election';
  #elector: Elector | undefined;
  /** The fence of the term this instance holds; null refuses every write. */
  #termFence: WriteFence | null = null;

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
    this.#termFence = null;
    if (jobsError !== undefined) throw jobsError;
  }

  /** A job's write was refused by the fence: the term is over even if the local deadline has not passed. */
  stepDown(reason: string): void {
    if (this.#elector?.isLeader() === true) this.#elector.stepDown(reason);
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

  #check(port: SyncSqlPort): void {
    const fence = this.#termFence;
    if (fence === null) {
      throw new LeadershipLostError(
        'not_leader',
        'this instance is not the leader: its jobs may not write',
        null,
      );
    }
    fence.check(port);
  }

  #elected(elector: Elector): void {
    const term = elector.term();
    if (term === null) return;
    this.#termFence = termFence(term);
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
    jobs.start().catch((error: unknown) => {
      env.logger.error({ err: error, epoch: term.epoch }, 'the jobs did not start; stepping down');
      this.stepDown('the jobs did not start');
    });
  }

  #lost(reason: string): void {
    this.#termFence = null;
    const { env, jobs } = this.options;
    env.logger.warn({ reason }, 'standing by: the jobs stop');
    jobs.stop(STOP_AFTER_LOSS).catch((error: unknown) => {
      env.logger.error({ err: error }, 'the jobs of a lost term failed to stop');
    });
  }
}
