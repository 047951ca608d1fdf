/**
 * Operator commands from the CLI: carried out directly when no daemon holds the state, else queued in the state for
 * the daemon that holds it (the SQLite file's lock, or the PostgreSQL leadership) and waited for. Either way the
 * command prints the same lines and exits with the same code.
 */
import { hostname, userInfo } from 'node:os';
import type { LoadedConfig } from '../config/index.js';
import { actionArgs, ControlError, type ControlAction } from '../daemon/control/actions.js';
import { askCommand, bindToOpenLetters, queueLimits, type Asked } from '../daemon/control/command-queue.js';
import { commandFingerprint } from '../daemon/control/fingerprint.js';
import { carryOutInState, type StateActionResult } from '../daemon/control/state-actions.js';
import { systemClock } from '../shared/clock.js';
import {
  isStateFileBusy,
  openConfiguredState,
  openStateStore,
  type LockHolder,
  type StateStore,
} from '../state/index.js';
import type { CliContext } from './context.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from './errors.js';
import { withStateChange } from './state-access.js';
import { catchInterrupts, waitForCommand } from './wait-command.js';
import { wakeOffice } from './office-wake.js';

export type Given<R> =
  { readonly via: 'direct' | 'daemon'; readonly result: R } | { readonly via: 'queued'; readonly id: number };

export function requestedByCli(): string {
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (a container's arbitrary uid): the host still says where it came from
  }
  return `cli:${user}@${hostname()}`;
}

/** The state is held by a running daemon: the file's lock, or a leader on the shared database. */
function heldByDaemon(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'state_locked' || code === 'leader_elsewhere';
}

/** A ControlError as the CLI reports it. */
export function asCliError(error: unknown): unknown {
  if (!(error instanceof ControlError)) return error;
  const usage = error.code === 'usage' || error.code === 'config_invalid';
  return new CliError(error.message, error.code, usage ? EXIT_USAGE : EXIT_FAILURE);
}

export interface GiveOptions<R> {
  readonly loaded: LoadedConfig;
  readonly action: ControlAction;
  /** Carries the action out here; rejects with `state_locked` or `leader_elsewhere` while a daemon holds the state. */
  readonly direct: () => Promise<R>;
  /** false: queue it for the daemon and return at once (`--no-wait`). */
  readonly wait?: boolean;
  /**
   * Carries the queued command out here when the state turns out to be held by no daemon (a one-off command held
   * it, or the daemon stopped before draining); undefined while a daemon still holds it. State actions only.
   */
  readonly takeOver?: (id: number) => Promise<{ result: unknown } | undefined>;
}

export async function giveCommand<R>(context: CliContext, options: GiveOptions<R>): Promise<Given<R>> {
  try {
    return { via: 'direct', result: await options.direct() };
  } catch (error) {
    if (!heldByDaemon(error)) throw asCliError(error);
  }
  const state = openForQueue(options.loaded);
  const interrupts = catchInterrupts();
  try {
    const { id, merged } = askFromCli(state, options);
    wakeOffice(options.loaded, requestedByCli());
    if (options.wait === false) return { via: 'queued', id };
    const as = merged ? 'the same command was queued already as' : 'queued for it as';
    context.output.waiting(`a daemon holds the state: ${as} command #${id}, waiting...`);
    const limits = queueLimits(options.loaded.config);
    const waiting = { limits, shared: options.loaded.config.state.url !== undefined, asCliError, interrupts };
    const takeOver = options.takeOver === undefined ? undefined : quietTakeOver(options.takeOver);
    const result = (await waitForCommand(state, id, { ...waiting, takeOver }).catch((error: unknown) => {
      throw namingTheFile(error, options.loaded);
    })) as R;
    return { via: 'daemon', result };
  } finally {
    interrupts.release();
    context.output.done();
    state.close();
  }
}

/** Queues the action under the queue's rules (see command-queue.ts); a refusal as the CLI reports it. */
function askFromCli<R>(state: StateStore, options: GiveOptions<R>): Asked {
  try {
    const action = bindToOpenLetters(options.action, state);
    return askCommand(
      state,
      {
        kind: action.kind,
        args: actionArgs(action),
        fingerprint: commandFingerprint(options.loaded.config),
        requestedBy: requestedByCli(),
      },
      queueLimits(options.loaded.config),
    );
  } catch (error) {
    if (isStateFileBusy(error)) throw stateFileBusy(options.loaded, holderOf(state));
    throw asCliError(error);
  }
}

/** Another process's write held the state file past the busy timeout: the daemon's, if it is stopped or stalled. */
function stateFileBusy(loaded: LoadedConfig, holder: LockHolder | null): CliError {
  const daemon =
    holder === null
      ? 'the daemon that holds the file may be stopped or stalled: look at it'
      : `the daemon that holds the file (pid ${holder.pid} on ${holder.hostname}) may be stopped or stalled: ` +
        `\`ps -o stat= -p ${holder.pid}\` shows T when it is stopped, and \`kill -CONT ${holder.pid}\` lets it go on`;
  return new CliError(
    `the state file ${loaded.config.state.path} stayed locked by another process's write, so the command was not ` +
      `queued (nothing was done); ${daemon}; then give the command again`,
    'state_busy',
  );
}

/** Who holds the state file, as its lock row says; null when that cannot be read either. */
function holderOf(state: StateStore): LockHolder | null {
  try {
    return state.lockHolder();
  } catch {
    return null;
  }
}

/** A take-over that finds the state held after all (a daemon started meanwhile) leaves the command to it. */
function quietTakeOver(
  takeOver: (id: number) => Promise<{ result: unknown } | undefined>,
): (id: number) => Promise<{ result: unknown } | undefined> {
  return (id) =>
    takeOver(id).catch((error: unknown) => {
      if (heldByDaemon(error)) return undefined;
      throw asCliError(error);
    });
}

/**
 * The daemon refused a command given after an edit of the mappings it has not reloaded: say which file, and the
 * reload that takes it (an office's, for a company of an office: a company's own reload takes only its files, and
 * a change to the office's shared part needs the office's). A reload refused for a change that needs a restart
 * leaves the way out to its own message.
 */
function namingTheFile(error: unknown, loaded: LoadedConfig): unknown {
  if (!(error instanceof CliError) || error.code !== 'mappings_differ') return error;
  const reload = `supply-sync --config ${loaded.company?.office ?? loaded.file} config reload`;
  return new CliError(
    `the running daemon's mappings differ from ${loaded.file}: run \`${reload}\` first, then this command again ` +
      '(nothing was done); if the reload is refused for a change that only a restart takes, restart the daemon ' +
      'or undo that change',
    'mappings_differ',
  );
}

/** A state action: in one transaction here, or by the daemon. */
export function giveStateCommand(
  context: CliContext,
  loaded: LoadedConfig,
  action: ControlAction,
  purpose: string,
): Promise<Given<StateActionResult>> {
  const actionContext = (state: StateStore) => ({
    state,
    file: loaded.file,
    jobs: Object.keys(loaded.config.jobs),
    by: requestedByCli(),
    timeZone: loaded.config.timezone,
  });
  return giveCommand(context, {
    loaded,
    action,
    direct: () =>
      withStateChange(loaded.config, purpose, (state) =>
        state.transaction(() => carryOutInState(action, actionContext(state))),
      ),
    takeOver: (id) =>
      withStateChange(loaded.config, purpose, (state) => {
        const outcome = state.transaction(() => {
          if (!state.commands.claim(id)) return undefined;
          try {
            const result = carryOutInState(action, actionContext(state));
            state.commands.complete(id, result);
            return { result };
          } catch (error) {
            if (!(error instanceof ControlError)) throw error;
            state.commands.fail(id, error.code, error.message);
            return { error };
          }
        });
        if (outcome !== undefined && 'error' in outcome) throw outcome.error;
        return outcome;
      }),
  });
}

/**
 * The state beside the daemon that holds it: a second connection to the file without its lock (the daemon
 * migrated it), or the shared database without a fence (a queued command is the one row written, and the leader
 * decides what it does).
 */
export function openForQueue(loaded: LoadedConfig): StateStore {
  const location = loaded.config.state;
  if (location.url !== undefined) return openConfiguredState(location, systemClock);
  return openStateStore({ file: location.path, clock: systemClock, lock: false });
}
