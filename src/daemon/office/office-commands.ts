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
import { expireStale, type QueueLimits } from '../control/command-queue.js';

/** The kind the CLI rings with, `args.company` naming the company whose queue it wrote to. */
export const OFFICE_WAKE = 'company.wake';

/** Finished commands are kept this long (a wake per CLI command adds up). */
const FINISHED_RETENTION_MS = 7 * 24 * 60 * 60_000;

export interface OfficeQueueOptions {
  readonly logger: Logger;
  readonly limits: QueueLimits;
  readonly pollMs: number;
  /** Carries out a command of the office; rejects with a ControlError for a refusal. */
  readonly carryOut: (command: QueuedCommand) => Promise<unknown>;
}

export interface OfficeCommands {
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
  state.commands.pruneFinished(FINISHED_RETENTION_MS);
  const queue: Queue = { state, unrecorded: new Map() };
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();
  return {
    serve: (options) => {
      timer = setInterval(() => {
        current = current.then(() => drain(queue, options, () => closed));
      }, options.pollMs);
      timer.unref();
    },
    close: async () => {
      if (closed) return;
      closed = true;
      clearInterval(timer);
      await current;
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
}

async function drain(queue: Queue, options: OfficeQueueOptions, closed: () => boolean): Promise<void> {
  const { state } = queue;
  try {
    if (closed()) return;
    for (const [id, outcome] of queue.unrecorded) record(queue, id, outcome, options.logger);
    expireStale(state, options.limits);
    for (const command of state.commands.unfinished()) {
      if (closed()) return;
      if (command.status !== 'pending' || !state.commands.claim(command.id)) continue;
      record(queue, command.id, await outcomeOf(command, options), options.logger);
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
