/**
 * The office's own command queue: the office file's own `state.path` (its companies keep theirs in folders beside
 * it), locked by the running office as a daemon locks its state, where the CLI queues what concerns the office as a
 * whole (`config reload` without --company) and waits for the outcome. Each command is carried out once, in turn,
 * and recorded with who asked; a command the office was carrying out when it stopped is told so, not redone.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.js';
import { openStateStore, type QueuedCommand, type SqliteStateStore } from '../../state/index.js';
import { ControlError } from '../control/actions.js';
import type { OfficeConfig } from '../../config/index.js';
import { expireStale, queueLimits, type QueueLimits } from '../control/command-queue.js';
import { FINISHED_RETENTION_MS } from '../control/command-service.js';

/** The kind the CLI rings with, `args.company` naming the company whose queue it wrote to. */
export const OFFICE_WAKE = 'company.wake';

/** The office's queue limits: its shared `server.control` settings, as every company reads them. */
export function officeQueueLimits(office: OfficeConfig): QueueLimits {
  return queueLimits(office.companies.values().next().value?.config ?? {});
}

/**
 * A ring is merged with one already waiting for the same company, so the waiting rings are bounded by the number of
 * companies: the per-kind bound of operator commands does not apply to them.
 */
export function wakeLimits(limits: QueueLimits): QueueLimits {
  return { ...limits, maxPendingPerKind: Number.MAX_SAFE_INTEGER };
}

export interface OfficeQueueOptions {
  readonly logger: Logger;
  readonly limits: QueueLimits;
  readonly pollMs: number;
  /** Carries out a command of the office; rejects with a ControlError for a refusal. */
  readonly carryOut: (command: QueuedCommand) => Promise<unknown>;
}

export interface OfficeCommands {
  /** The office's own state file, also where the office report waits to be sent. */
  readonly state: SqliteStateStore;
  /** Reads the queue every pollMs from now on. */
  serve(options: OfficeQueueOptions): void;
  /** Stops reading (a command under way finishes first) and gives the state file up. */
  close(): Promise<void>;
}

/**
 * Opens and locks the office's state file: a second office on the same files is refused here, before anything
 * starts. A command left `running` by an office that stopped is recorded interrupted.
 */
export function openOfficeCommands(file: string, clock: Clock): OfficeCommands {
  const state = openStateStore({ file, clock, holder: 'daemon' });
  failInterrupted(state);
  const queue: Queue = { state, unrecorded: new Map(), inFlight: new Set(), prunedAt: 0 };
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  return {
    state,
    serve: (options) => {
      timer = setInterval(() => {
        drain(queue, options, () => closed);
      }, options.pollMs);
      timer.unref();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await Promise.all(queue.inFlight);
      state.close();
    },
  };
}

function failInterrupted(state: SqliteStateStore): void {
  for (const command of state.commands.unfinished()) {
    if (command.status !== 'running') continue;
    state.commands.fail(
      command.id,
      'interrupted',
      'the office stopped while carrying it out: the office status page shows where each company is; give it again if needed',
    );
  }
}

type Outcome = { ok: true; result: unknown } | { ok: false; code: string; message: string };

/** The office's state, and the outcomes it refused to record (busy, disk full), recorded again at each read. */
interface Queue {
  readonly state: SqliteStateStore;
  readonly unrecorded: Map<number, Outcome>;
  /** Commands being carried out: closing waits for them. */
  readonly inFlight: Set<Promise<void>>;
  prunedAt: number;
}

const PRUNE_EVERY_MS = 60 * 60_000;

/**
 * Takes every pending command; a long one (a reload, which the office itself runs one at a time) is not waited for
 * here, so the rings behind it are still answered at once.
 */
function drain(queue: Queue, options: OfficeQueueOptions, closed: () => boolean): void {
  const { state } = queue;
  try {
    if (closed()) return;
    for (const [id, outcome] of queue.unrecorded) record(queue, id, outcome, options.logger);
    expireStale(state, options.limits);
    // A ring per CLI command adds up in an office that runs for months.
    if (Date.now() - queue.prunedAt > PRUNE_EVERY_MS) {
      state.commands.pruneFinished(FINISHED_RETENTION_MS);
      queue.prunedAt = Date.now();
    }
    for (const command of state.commands.unfinished()) {
      if (closed()) return;
      if (command.status !== 'pending' || !state.commands.claim(command.id)) continue;
      const done = outcomeOf(command, options).then((outcome) =>
        record(queue, command.id, outcome, options.logger),
      );
      queue.inFlight.add(done);
      void done.finally(() => queue.inFlight.delete(done));
    }
  } catch (error) {
    options.logger.error(
      { err: error },
      'the office command queue could not be read; it is read again shortly',
    );
  }
}

async function outcomeOf(command: QueuedCommand, options: OfficeQueueOptions): Promise<Outcome> {
  try {
    return { ok: true, result: await options.carryOut(command) };
  } catch (error) {
    if (!(error instanceof ControlError)) {
      options.logger.error({ err: error, command: command.id }, 'office command failed');
    }
    const code = error instanceof ControlError ? error.code : 'command_failed';
    return { ok: false, code, message: error instanceof Error ? error.message : String(error) };
  }
}

function record(queue: Queue, id: number, outcome: Outcome, logger: Logger): void {
  try {
    if (outcome.ok) queue.state.commands.complete(id, outcome.result);
    else queue.state.commands.fail(id, outcome.code, outcome.message);
    queue.unrecorded.delete(id);
  } catch (error) {
    logger.error(
      { err: error, command: id },
      'office command outcome not recorded yet; it is recorded again shortly',
    );
    queue.unrecorded.set(id, outcome);
  }
}
