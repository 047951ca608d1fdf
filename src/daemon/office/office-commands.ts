/**
 * The office's own command queue: the office file's own `state.path` (its companies keep theirs in folders beside
 * it), locked by the running office as a daemon locks its state, where the CLI queues what concerns the office
 * as a whole (`config reload` without --company) and waits for the outcome. Each command is carried out once, in
 * turn, and recorded with who asked; a command the office was carrying out when it stopped is told so, not redone.
 */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.js';
import { openStateStore, type SqliteStateStore } from '../../state/index.js';
import { ControlError } from '../control/actions.js';
import { expireStale, type QueueLimits } from '../control/command-queue.js';

export interface OfficeCommandOptions {
  /** The office's state file. */
  readonly file: string;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly limits: QueueLimits;
  readonly pollMs: number;
  /** Carries out a command of the office; rejects with a ControlError for a refusal. */
  readonly carryOut: (kind: string, requestedBy: string) => Promise<unknown>;
}

export interface OfficeCommands {
  close(): Promise<void>;
}

/** Opens (and locks) the office's state file and reads its queue every pollMs until closed. */
export function startOfficeCommands(options: OfficeCommandOptions): OfficeCommands {
  const state = openStateStore({
    file: options.file,
    clock: options.clock,
    holder: 'daemon',
  });
  failInterrupted(state);
  let closed = false;
  let current: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    current = current.then(() => (closed ? undefined : drain(state, options)));
  }, options.pollMs);
  timer.unref();
  return {
    close: async () => {
      closed = true;
      clearInterval(timer);
      await current;
      state.close();
    },
  };
}

/** A command left `running` by an office that stopped meanwhile: it may have been carried out in part. */
function failInterrupted(state: SqliteStateStore): void {
  for (const command of state.commands.unfinished()) {
    if (command.status !== 'running') continue;
    state.commands.fail(
      command.id,
      'interrupted',
      'the office stopped while carrying it out; see the office status page, and give it again if needed',
    );
  }
}

async function drain(state: SqliteStateStore, options: OfficeCommandOptions): Promise<void> {
  try {
    expireStale(state, options.limits);
    for (const command of state.commands.unfinished()) {
      if (command.status !== 'pending' || !state.commands.claim(command.id)) continue;
      try {
        state.commands.complete(command.id, await options.carryOut(command.kind, command.requestedBy));
      } catch (error) {
        const code = error instanceof ControlError ? error.code : 'command_failed';
        state.commands.fail(command.id, code, error instanceof Error ? error.message : String(error));
        if (!(error instanceof ControlError)) options.logger.error({ err: error }, 'office command failed');
      }
    }
  } catch (error) {
    options.logger.error(
      { err: error },
      'the office command queue could not be read; it is read again shortly',
    );
  }
}
