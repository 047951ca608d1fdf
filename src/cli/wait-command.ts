/**
 * A CLI command waiting for the daemon to carry out its queued command. It never hangs: it ends when the command is
 * finished (done, failed, expired, cancelled), when no daemon holds the state any more or the leader's heartbeat
 * stopped (seen twice in a row, a few seconds apart, well within 30 s), and at once on SIGINT or SIGTERM. Each way
 * it names the command and says whether it stays queued.
 */
import { ControlError } from '../daemon/control/actions.js';
import { expireStale, type QueueLimits } from '../daemon/control/command-queue.js';
import type { QueuedCommand, StateStore } from '../state/index.js';
import { daemonPresence } from './daemon-presence.js';
import { CliError, EXIT_QUEUED } from './errors.js';

/** How often the command's row is read. */
const POLL_MS = 100;
/** Every this many reads: the queue's expiry, the daemon's presence, and a take-over. */
const CHECK_EVERY = 20;

export interface WaitOptions {
  readonly limits: QueueLimits;
  /** The state is a shared (PostgreSQL) one: the daemon's presence is the leadership lease. */
  readonly shared: boolean;
  /** Carries a queued state action out here when no daemon holds the state; undefined while one does. */
  readonly takeOver?: ((id: number) => Promise<{ result: unknown } | undefined>) | undefined;
  /** Turns a refusal into the CLI's error. */
  readonly asCliError: (error: unknown) => unknown;
  /** What becomes of a command the CLI stops waiting for, when its taker is not a company's daemon (the office). */
  readonly fate?: (command: QueuedCommand | null, id: number) => string;
  /** SIGINT and SIGTERM as caught since before the command was queued; caught from the call on when absent. */
  readonly interrupts?: Interrupts;
}

export interface Interrupts {
  /** Aborted, with the signal's name as reason, by the first SIGINT or SIGTERM. */
  readonly signal: AbortSignal;
  /** Gives the signals back to their default action. */
  release(): void;
}

/**
 * Catches SIGINT and SIGTERM from now on. Call it before queueing a command: a signal that came between the queue's
 * commit and the wait would otherwise end the process by default, without saying that the command stays queued.
 */
export function catchInterrupts(): Interrupts {
  const stop = new AbortController();
  const onInt = () => stop.abort('SIGINT');
  const onTerm = () => stop.abort('SIGTERM');
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  return {
    signal: stop.signal,
    release: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}

export async function waitForCommand(state: StateStore, id: number, options: WaitOptions): Promise<unknown> {
  const interrupts = options.interrupts ?? catchInterrupts();
  try {
    return await poll(state, id, options, interrupts.signal);
  } finally {
    if (options.interrupts === undefined) interrupts.release();
  }
}

async function poll(
  state: StateStore,
  id: number,
  options: WaitOptions,
  stop: AbortSignal,
): Promise<unknown> {
  let goneBefore = false;
  for (let round = 1; ; round++) {
    if (stop.aborted)
      throw stoppedWaiting(state, id, `${String(stop.reason)}: stopped waiting`, options.fate);
    const check = round % CHECK_EVERY === 1;
    if (check) expireStale(state, options.limits);
    const command = state.commands.get(id);
    if (command === null) throw new CliError(`command #${id} is no longer in the state`, 'command_lost');
    if (command.status === 'done') return command.result;
    if (command.status === 'failed') throw options.asCliError(refusalOf(command));
    if (check) {
      const presence = daemonPresence(state, options.shared);
      if (!presence.held && options.takeOver !== undefined && command.status === 'pending') {
        const done = await options.takeOver(id);
        if (done !== undefined) return done.result;
      } else if (!presence.held && goneBefore) {
        throw stoppedWaiting(state, id, presence.why, options.fate);
      }
      goneBefore = !presence.held;
    }
    await pause(POLL_MS, stop);
  }
}

function refusalOf(command: QueuedCommand): ControlError {
  const code = command.errorCode ?? 'command_failed';
  const named = code === 'expired' || code === 'cancelled' ? `command #${command.id}: ` : '';
  return new ControlError(code, `${named}${command.error ?? 'failed'}`);
}

/** The CLI stops waiting: what becomes of the command, and how to follow it. */
function stoppedWaiting(state: StateStore, id: number, why: string, fateOf?: WaitOptions['fate']): CliError {
  const command = state.commands.get(id);
  if (fateOf !== undefined)
    return new CliError(`${why}: ${fateOf(command, id)}`, 'command_queued', EXIT_QUEUED);
  const follow = `follow it with \`supply-sync commands show ${id}\``;
  const fate =
    command?.status === 'running'
      ? `command #${id} was taken by a daemon and is not finished; a daemon that leads next carries it out again; ${follow}`
      : `command #${id} stays queued: a daemon that starts before it expires carries it out (or \`supply-sync commands cancel ${id}\`); ${follow}`;
  return new CliError(`${why}: ${fate}`, 'command_queued', EXIT_QUEUED);
}

function pause(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    }
    stop.addEventListener('abort', done, { once: true });
  });
}
