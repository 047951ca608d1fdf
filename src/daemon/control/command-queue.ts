/**
 * The rules of the operator command queue, the same for the CLI and the control API: a command waits at most
 * `server.control.command_ttl` for a daemon (then it is recorded `expired` and nothing is done); an identical
 * pending command is not queued twice (the second ask gets the first's id); at most `max_pending_per_kind` commands
 * of one kind wait (one more is refused naming the oldest); a flow-wide retry or discard is bound to the letters open
 * when it is asked, so letters filed before a daemon takes it are left alone.
 */
import type { CoreConfig } from '../../config/index.js';
import type { NewCommand, StateStore } from '../../state/index.js';
import { ControlError, type ControlAction } from './actions.js';
import { retryTarget } from './state-actions.js';

type ServerControl = NonNullable<CoreConfig['server']['control']>;

export const DEFAULT_COMMAND_TTL_MS = 60 * 60_000;
export const DEFAULT_MAX_PENDING_PER_KIND = 10;

export interface QueueLimits {
  readonly ttlMs: number;
  readonly maxPendingPerKind: number;
}

export function queueLimits(config: {
  readonly server?: { readonly control?: Readonly<ServerControl> | undefined };
}): QueueLimits {
  const control = config.server?.control;
  return {
    ttlMs: control?.command_ttl ?? DEFAULT_COMMAND_TTL_MS,
    maxPendingPerKind: control?.max_pending_per_kind ?? DEFAULT_MAX_PENDING_PER_KIND,
  };
}

/**
 * The longest Retry-After of a full queue: a running daemon drains it within a run's length, so asking again
 * within a minute finds room sooner than the oldest command's expiry would promise.
 */
export const QUEUE_FULL_RETRY_AFTER_MAX_S = 60;

/**
 * One more command of a kind than the bound allows; `pending` is the oldest one waiting. `retryAfterSeconds`: when
 * asking again may find room (at the latest when that oldest command expires, and never later than a minute).
 */
export class QueueFullError extends ControlError {
  constructor(
    readonly pending: number,
    kind: string,
    bound: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      'queue_full',
      `${bound} ${kind} commands are waiting for the daemon already (the oldest is command #${pending}); nothing ` +
        `was queued: wait for them (\`supply-sync commands show ${pending}\`) or cancel one ` +
        `(\`supply-sync commands cancel ${pending}\`), then ask again`,
    );
  }
}

export interface Asked {
  readonly id: number;
  /** An identical command was pending already: `id` is that one's. */
  readonly merged: boolean;
}

/** Queues the command under the rules above, in one transaction; `now` as the state's clock reads it. */
export function askCommand(
  state: StateStore,
  command: NewCommand,
  limits: QueueLimits,
  now: number = Date.now(),
): Asked {
  return state.transaction(() => {
    expireStale(state, limits);
    const pending = state.commands.pendingOfKind(command.kind);
    const args = canonical(command.args);
    const same = pending.find((c) => c.fingerprint === command.fingerprint && canonical(c.args) === args);
    if (same !== undefined) return { id: same.id, merged: true };
    const oldest = pending[0];
    if (oldest !== undefined && pending.length >= limits.maxPendingPerKind) {
      const untilExpiry = Math.ceil((oldest.requestedAt + limits.ttlMs - now) / 1000);
      const retryAfter = Math.min(QUEUE_FULL_RETRY_AFTER_MAX_S, Math.max(1, untilExpiry));
      throw new QueueFullError(oldest.id, command.kind, limits.maxPendingPerKind, retryAfter);
    }
    return { id: state.commands.enqueue(command), merged: false };
  });
}

/** Records `expired` every command that waited longer than the TTL; returns their ids. */
export function expireStale(state: StateStore, limits: Pick<QueueLimits, 'ttlMs'>): number[] {
  return state.commands.expirePending(
    limits.ttlMs,
    `no daemon took it within ${formatTtl(limits.ttlMs)} (server.control.command_ttl); nothing was done: give it ` +
      'again when a daemon runs',
  );
}

/**
 * A flow-wide retry or discard, bound to the ids of the letters it names now; refused (dead_letter_not_found) when
 * it names none. Any other action as it is.
 */
export function bindToOpenLetters(action: ControlAction, state: StateStore): ControlAction {
  if (action.kind !== 'dead-letters.retry' && action.kind !== 'dead-letters.discard') return action;
  const { target } = action;
  if ('id' in target || target.ids !== undefined) return action;
  const statuses =
    action.kind === 'dead-letters.retry' ? (['open'] as const) : (['open', 'retrying'] as const);
  const ids = state.deadLetters.matchingIds(target, statuses);
  if (ids.length === 0) throw new ControlError('dead_letter_not_found', 'no matching open dead letters');
  const bound = { ...target, ids };
  return { ...action, target: action.kind === 'dead-letters.retry' ? retryTarget(bound, state) : bound };
}

function formatTtl(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.round(ms / 1000)}s`;
}

/** JSON with the keys sorted at every level: two asks built in another order are still the same command. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(
          Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : inner,
  );
}
