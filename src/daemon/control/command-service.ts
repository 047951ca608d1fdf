/**
 * The leader drains the operator command queue: commands given by the CLI or the control API while this daemon
 * holds the state. A change of the state alone is claimed, carried out and recorded done in one transaction (fenced
 * on a shared state), so a leader that dies leaves it pending or done, never half done. A run now is claimed first
 * and recorded done when the run has ended; a leader that dies or stops during the run leaves it claimed, and the
 * next leader runs the job again: the flows' own exactly-once guarantees make that second run write only what the
 * first did not. A run that throws records the command failed (run_failed), and a command taken
 * MAX_COMMAND_ATTEMPTS times without finishing is recorded failed (too_many_attempts) instead of taken again.
 */
import type { RunResult } from '../../engine/index.js';
import { scrubSecrets } from '../../log/index.js';
import { SchedulerStoppedError } from '../../scheduler/index.js';
import { LeadershipLostError, type QueuedCommand } from '../../state/index.js';
import { webhookApiFromClient, type WebhookApi } from '../../webhooks/index.js';
import type { Environment } from '../services/environment.js';
import { every, stopLoop, type Loop } from '../services/every.js';
import type { Service, StopOptions } from '../services/service.js';
import { ControlError, STATE_ACTIONS, actionFrom, type ControlAction, type ControlKind } from './actions.js';
import { carryOutEffect } from './effect-actions.js';
import { expireStale, queueLimits } from './command-queue.js';
import { applyReload, logReload, planReload } from './config-reload.js';
import { configFingerprint, fingerprintParts } from './fingerprint.js';
import { mappingsFingerprint } from '../jobs/mappings.js';
import { heldWebhookRuns } from './paused-runs.js';
import { carryOutInState, jobOfStream } from './state-actions.js';

/** How often the queue is read; the control API also wakes the drain at once. */
export const COMMAND_POLL_MS = 250;
/** Finished commands are kept this long, for the CLI that waits on them and for `runs`. */
export const FINISHED_RETENTION_MS = 7 * 24 * 60 * 60_000;
/** Claims of one command before it is recorded failed: a command that kills or stalls every leader ends. */
export const MAX_COMMAND_ATTEMPTS = 5;
/**
 * The commands whose outcome depends on the mappings: given from a file whose mappings the daemon has not reloaded,
 * they would run with other mappings than the file says, so they are refused until `config reload`.
 */
const MAPPINGS_DEPENDENT: ReadonlySet<string> = new Set<ControlKind>(['sync', 'dead-letters.retry']);

export interface CommandRunner {
  /**
   * Runs the job now (or right after its current run); { threw } when the run threw; null when it was not run (the
   * scheduler is stopping). The run is recorded as asked for by `requestedBy`, the command's caller.
   */
  runForResult(job: string, requestedBy: string): Promise<RunResult | { readonly threw: unknown } | null>;
  /** Starts the webhook run a job owes for webhooks held while it was paused; does not wait for it. */
  runHeldWebhooks(job: string): void;
  /**
   * Carries out `work` while no run of the job is in flight: at once when it is idle, else right after its current
   * run and before its next one; rejects with a SchedulerStoppedError, `work` not carried out, when the scheduler
   * stops before that run ends.
   */
  betweenRuns(job: string, work: () => void): Promise<void>;
}

/** The run did not happen because this daemon is stopping or lost its term; the command stays for the next leader. */
class LeftForNextLeader extends Error {}

export class CommandService implements Service {
  readonly name = 'operator commands';
  readonly #fingerprint: string;
  #loop: Loop | undefined;
  #started = false;
  #stopping = false;
  /** Counts the starts: work scheduled in one term checks it is still that term before it is carried out. */
  #term = 0;
  readonly #inFlight = new Set<number>();
  /** When this term started: a command claimed before it was claimed by an earlier daemon (or term). */
  #startedAt = 0;

  constructor(
    private readonly env: Environment,
    private readonly runner: CommandRunner,
    /** How often the queue is read; an office of many companies reads each company's less often. */
    private readonly pollMs = COMMAND_POLL_MS,
  ) {
    this.#fingerprint = configFingerprint(env.loaded.config);
  }

  async start(): Promise<void> {
    if (this.#loop !== undefined) return;
    this.#stopping = false;
    this.#started = true;
    this.#term += 1;
    const { env } = this;
    this.#startedAt = env.clock.now();
    env.state.commands.pruneFinished(FINISHED_RETENTION_MS);
    this.#runHeldWebhooks();
    this.drain();
    this.#loop = every(
      env.clock,
      this.pollMs,
      () => this.drain(),
      (error) => env.logger.warn({ err: error }, 'the operator command queue could not be read'),
      env.loopClock,
    );
  }

  async stop(options: StopOptions): Promise<void> {
    this.#stopping = true;
    this.#started = false;
    const loop = this.#loop;
    this.#loop = undefined;
    await stopLoop(loop, options, this.env.logger, 'operator commands');
  }

  /**
   * Carries out what is queued; commands with an effect outside the state go on in the background. Nothing while
   * stopped: on a standby the leader drains the queue.
   */
  drain(): void {
    if (this.#stopping || !this.#started) return;
    for (const command of this.#unexpired()) {
      if (this.#inFlight.has(command.id)) continue;
      if (command.attempts >= MAX_COMMAND_ATTEMPTS) {
        this.#fail(command, tooManyAttempts(command));
        continue;
      }
      // A reload reads the daemon's own file, whatever file the CLI was given.
      const refused = command.kind === 'config.reload' ? undefined : this.#otherConfig(command);
      if (refused !== undefined) {
        this.#fail(command, refused);
        continue;
      }
      let action: ControlAction;
      try {
        action = actionFrom(command.kind, command.args);
      } catch (error) {
        this.#fail(command, error);
        continue;
      }
      if (action.kind === 'config.reload') this.#reload(command);
      else if (action.kind === 'cursor.reset') this.#resetBetweenRuns(command, action.stream);
      else if (STATE_ACTIONS.has(action.kind)) this.#carryOutInState(command, action);
      else this.#startEffect(command, action);
    }
  }

  /**
   * The unfinished commands; those that waited longer than their time to live are recorded `expired` first, not
   * carried out late (a write only when there is one: the drain runs four times a second).
   */
  #unexpired(): QueuedCommand[] {
    const { state, logger, clock } = this.env;
    const limits = queueLimits(this.env.loaded.config);
    const unfinished = state.commands.unfinished();
    const staleBefore = clock.now() - limits.ttlMs;
    if (!unfinished.some((c) => c.status === 'pending' && c.requestedAt < staleBefore)) return unfinished;
    const expired = state.transaction(() => expireStale(state, limits));
    for (const id of expired)
      logger.warn({ command: id }, 'operator command expired before a daemon took it');
    return state.commands.unfinished();
  }

  #context(command: QueuedCommand) {
    const { env } = this;
    return {
      state: env.state,
      file: env.loaded.file,
      jobs: Object.keys(env.loaded.config.jobs),
      by: command.requestedBy,
      timeZone: env.loaded.config.timezone,
    };
  }

  #carryOutInState(command: QueuedCommand, action: ControlAction): void {
    const { state } = this.env;
    try {
      const result = state.transaction(() => {
        if (!state.commands.claim(command.id)) return undefined;
        const outcome = carryOutInState(action, this.#context(command));
        state.commands.complete(command.id, outcome);
        return outcome;
      });
      if (result === undefined) return;
      this.#log(command, 'done', result);
      if (action.kind === 'jobs.resume') this.#runHeldWebhooks();
    } catch (error) {
      this.#fail(command, error);
    }
  }

  /**
   * Why a command of another config is refused: another structure, or, for a command whose outcome depends on the
   * mappings (a run now, a dead-letter retry), mappings the daemon has not reloaded. Others go ahead.
   */
  #otherConfig(command: QueuedCommand): ControlError | undefined {
    const given = fingerprintParts(command.fingerprint);
    if (given.structure !== this.#fingerprint) return mismatch(command, this.#fingerprint);
    if (given.mappings === undefined || !MAPPINGS_DEPENDENT.has(command.kind)) return undefined;
    if (given.mappings === mappingsFingerprint(this.env.mappings.current())) return undefined;
    return new ControlError(
      'mappings_differ',
      `command #${command.id}: the running daemon's mappings differ from those of the config file it was given ` +
        'with: run `supply-sync config reload` first (nothing was done)',
    );
  }

  /**
   * Reads the config file again; recorded done with what changed, or failed with why nothing did. The new mappings
   * are swapped in only once the command is recorded done: a leader whose commit is refused (fenced) changes nothing.
   */
  #reload(command: QueuedCommand): void {
    const { state, mappings } = this.env;
    try {
      const plan = state.transaction(() => {
        if (!state.commands.claim(command.id)) return undefined;
        const planned = planReload({ loaded: this.env.loaded, mappings });
        state.commands.complete(command.id, planned.result);
        return planned;
      });
      if (plan === undefined) return;
      applyReload(mappings, plan);
      const { result } = plan;
      logReload(this.env.logger, command.requestedBy, result);
      this.#log(command, 'done', result);
    } catch (error) {
      this.#fail(command, error);
    }
  }

  /**
   * A run in flight read the stream's cursor before the reset and would save it back after, undoing the reset: the
   * reset waits for the run of the stream's job to end and is carried out before that job's next run. It is carried
   * out only in the term it was scheduled in: a daemon that stopped while the run went on (and may lead again since,
   * with a new scheduler running that job) leaves the reset to the drain of the term then current. A scheduler that
   * stops before the run ends settles the wait (SchedulerStoppedError), which leaves the command queued.
   */
  #resetBetweenRuns(command: QueuedCommand, stream: string): void {
    const action: ControlAction = { kind: 'cursor.reset', stream };
    const job = jobOfStream(stream, [...this.env.jobs.keys()]);
    if (job === undefined) {
      this.#carryOutInState(command, action);
      return;
    }
    const term = this.#term;
    this.#inFlight.add(command.id);
    this.runner
      .betweenRuns(job, () => {
        if (this.#inTerm(term)) this.#carryOutInState(command, action);
      })
      .catch((error: unknown) => this.#fail(command, error))
      .finally(() => this.#inFlight.delete(command.id));
  }

  /** Started in `term` and not stopped since. */
  #inTerm(term: number): boolean {
    return this.#started && !this.#stopping && this.#term === term;
  }

  #startEffect(command: QueuedCommand, action: ControlAction): void {
    const { state } = this.env;
    this.#inFlight.add(command.id);
    const uncounted = this.#neverBegun(command, action);
    const work = async (): Promise<void> => {
      const claim = () =>
        uncounted ? state.commands.reclaimUncounted(command.id) : state.commands.claim(command.id);
      if (!state.transaction(claim)) return;
      this.#log(command, 'started');
      const result = await carryOutEffect(action, {
        ...this.#context(command),
        command: {
          id: command.id,
          requestedAt: command.requestedAt,
          takenBefore: command.claimedAt !== null,
        },
        runJob: (job) => this.#runJob(job, command.requestedBy),
        webhookApi: () => this.#webhookApi(),
        catalogApi: () => this.#supplierApi().catalog,
      });
      if (this.#stopping) throw new LeftForNextLeader();
      state.transaction(() => state.commands.complete(command.id, result));
      this.#log(command, 'done', result);
    };
    work()
      .catch((error: unknown) => {
        if (this.#stopping) this.#giveBack(command);
        this.#fail(command, error);
      })
      .finally(() => this.#inFlight.delete(command.id));
  }

  /**
   * A run now an earlier daemon took and whose run never began (no run of the job since it was taken): that daemon
   * was killed for another reason, at its start; taking it again is not one more attempt of the command's own.
   */
  #neverBegun(command: QueuedCommand, action: ControlAction): boolean {
    if (action.kind !== 'sync' || command.status !== 'running' || command.claimedAt === null) return false;
    if (command.claimedAt >= this.#startedAt) return false;
    return this.env.state.runs.list({ job: action.job, since: command.claimedAt, limit: 1 }).length === 0;
  }

  /** This daemon stops (not the command's failure): the claim is given back, pending for the next daemon. */
  #giveBack(command: QueuedCommand): void {
    try {
      this.env.state.transaction(() => this.env.state.commands.release(command.id));
    } catch (error) {
      this.env.logger.warn(
        { err: error, command: command.id },
        'an operator command could not be given back',
      );
    }
  }

  #runHeldWebhooks(): void {
    for (const job of heldWebhookRuns(this.env.state)) {
      if (this.env.jobs.has(job)) this.runner.runHeldWebhooks(job);
    }
  }

  async #runJob(job: string, requestedBy: string): Promise<RunResult> {
    if (!this.env.jobs.has(job)) {
      throw new ControlError('job_disabled', `job "${job}" is disabled in ${this.env.loaded.file}`);
    }
    const result = await this.runner.runForResult(job, requestedBy);
    if (result === null) throw new LeftForNextLeader();
    if ('threw' in result) {
      const { threw } = result;
      if (isLeadershipLost(threw)) throw new LeftForNextLeader();
      const message = threw instanceof Error ? threw.message : String(threw);
      throw new ControlError('run_failed', `the run of job "${job}" failed: ${message}`);
    }
    if (result.error?.startsWith('fenced:') === true) throw new LeftForNextLeader();
    return result;
  }

  #supplierApi() {
    const api = this.env.apis.get('supplier');
    if (api === undefined) {
      throw new ControlError(
        'api_unavailable',
        'this daemon has no supplier API client (its jobs are all buyer-side)',
      );
    }
    return api;
  }

  #webhookApi(): WebhookApi {
    const api = this.env.apis.get('supplier') ?? [...this.env.apis.values()][0];
    if (api === undefined) throw new ControlError('api_unavailable', 'this daemon has no API client');
    return webhookApiFromClient(api.webhooks);
  }

  /** Records why a command cannot be carried out; a lost term or a stop leaves it for the next leader instead. */
  #fail(command: QueuedCommand, error: unknown): void {
    const { env } = this;
    if (
      error instanceof LeftForNextLeader ||
      error instanceof SchedulerStoppedError ||
      isLeadershipLost(error)
    ) {
      env.logger.info(
        { command: command.id, kind: command.kind },
        'operator command left for the next leader',
      );
      return;
    }
    const code = error instanceof ControlError ? error.code : 'command_failed';
    const message = scrubSecrets(error instanceof Error ? error.message : String(error), env.secrets());
    try {
      env.state.transaction(() => env.state.commands.fail(command.id, code, message));
      this.#log(command, 'failed', { code, message });
    } catch (failure) {
      env.logger.warn(
        { err: failure, command: command.id },
        'an operator command could not be recorded as failed',
      );
    }
  }

  #log(command: QueuedCommand, what: 'started' | 'done' | 'failed', detail?: unknown): void {
    this.env.logger.info(
      { command: command.id, kind: command.kind, args: command.args, by: command.requestedBy, detail },
      `operator command ${what}`,
    );
  }
}

/**
 * A command whose daemon stopped during its own effect each time it was taken. A stop during a run now's own run
 * counts (the run began: a run that kills every daemon taking it must end, not take down each new leader in turn);
 * a clean stop, or a daemon killed before the run began, does not. The message says where to look and how to ask
 * again.
 */
function tooManyAttempts(command: QueuedCommand): ControlError {
  const job = command.kind === 'sync' ? String(command.args['job']) : undefined;
  const what =
    job === undefined
      ? `its daemon stopped during it each time (killed or crashed): find why in the daemon log, then give it again`
      : `its daemon stopped during the run of job "${job}" each time (killed or crashed; those runs show as ` +
        `\`failed: interrupted\` in \`supply-sync runs --job ${job}\`): find why in the daemon log around them, ` +
        `then give it again with \`supply-sync sync ${job}\``;
  return new ControlError(
    'too_many_attempts',
    `command #${command.id} was taken ${command.attempts} times without finishing; nothing more is done for it: ${what}`,
  );
}

function mismatch(command: QueuedCommand, fingerprint: string): ControlError {
  return new ControlError(
    'config_mismatch',
    `command #${command.id} was given with another config (fingerprint ${fingerprintParts(command.fingerprint).structure}) than the one this ` +
      `daemon runs (fingerprint ${fingerprint}); give it with the daemon's config file`,
  );
}

function isLeadershipLost(error: unknown): boolean {
  return error instanceof LeadershipLostError;
}
