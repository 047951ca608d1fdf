/** The actions that change the state alone; each runs inside the caller's transaction. */
import type { StateStore } from '../../state/index.js';
import { WebhookSecretStore } from '../../webhooks/index.js';
import { labelledTime } from '../../ops/time-format.js';
import { isRejectedFileKey } from '../../flows/shared/rejected-files.js';
import { ControlError, type ControlAction, type DeadLetterTarget } from './actions.js';

export interface StateActionContext {
  readonly state: StateStore;
  /** The config file, for messages. */
  readonly file: string;
  /** The jobs the config names. */
  readonly jobs: readonly string[];
  /** Who gave the command: `cli:user@host`, `api:token`... */
  readonly by: string;
  /** The config's `timezone`: times in messages are shown in it, labelled. */
  readonly timeZone: string;
}

export type StateActionResult =
  | { count: number }
  | { stream: string }
  | { job: string; paused: boolean; pausedAt?: number; pausedBy?: string; reason?: string | null }
  | { retired: number };

export function carryOutInState(action: ControlAction, context: StateActionContext): StateActionResult {
  const { state } = context;
  switch (action.kind) {
    case 'dead-letters.retry':
    case 'dead-letters.discard':
      return { count: deadLetters(action.kind, action.target, state) };
    case 'cursor.reset':
      if (!state.cursors.reset(action.stream)) {
        throw new ControlError(
          'cursor_not_found',
          `no cursor named "${action.stream}"; see \`supply-sync cursor list\``,
        );
      }
      return { stream: action.stream };
    case 'jobs.pause':
      return pause(action.job, action.reason, context);
    case 'jobs.resume':
      requireJob(action.job, context);
      if (!state.pausedJobs.resume(action.job)) {
        throw new ControlError('job_not_paused', `job "${action.job}" is not paused`);
      }
      return { job: action.job, paused: false };
    case 'webhooks.retire-secrets':
      return { retired: new WebhookSecretStore(state.kv).retireOlder() };
    default:
      throw new ControlError('unknown_command', `"${action.kind}" is not a change of the state alone`);
  }
}

/** The configured job whose runs read and save a stream's cursor (streams are named `<job>:<api path>`). */
export function jobOfStream(stream: string, jobs: readonly string[]): string | undefined {
  const colon = stream.indexOf(':');
  const job = colon < 0 ? stream : stream.slice(0, colon);
  return jobs.includes(job) ? job : undefined;
}

export function requireJob(job: string, context: Pick<StateActionContext, 'file' | 'jobs'>): void {
  if (context.jobs.includes(job)) return;
  throw new ControlError(
    'unknown_job',
    `no job "${job}" in ${context.file} (jobs: ${context.jobs.join(', ') || 'none'})`,
  );
}

function pause(job: string, reason: string | null, context: StateActionContext): StateActionResult {
  requireJob(job, context);
  const { state } = context;
  if (!state.pausedJobs.pause(job, context.by, reason)) {
    const paused = state.pausedJobs.get(job);
    const since =
      paused === null
        ? ''
        : ` since ${labelledTime(paused.pausedAt, context.timeZone)} by ${paused.pausedBy}`;
    throw new ControlError('job_paused_already', `job "${job}" is paused already${since}`);
  }
  const paused = state.pausedJobs.get(job);
  return {
    job,
    paused: true,
    ...(paused === null
      ? {}
      : { pausedAt: paused.pausedAt, pausedBy: paused.pausedBy, reason: paused.reason }),
  };
}

function deadLetters(
  kind: 'dead-letters.retry' | 'dead-letters.discard',
  target: DeadLetterTarget,
  state: StateStore,
): number {
  const letters = state.deadLetters;
  const count =
    kind === 'dead-letters.retry' ? letters.replay(retryTarget(target, state)) : letters.discard(target);
  if (count > 0) return count;
  if (!('id' in target)) throw new ControlError('dead_letter_not_found', 'no matching open dead letters');
  const letter = letters.byId(target.id);
  if (letter === null) throw new ControlError('dead_letter_not_found', `no dead letter #${target.id}`);
  const verb = kind === 'dead-letters.retry' ? 'retried' : 'discarded';
  throw new ControlError(
    'dead_letter_closed',
    `dead letter #${target.id} is ${letter.status}: it cannot be ${verb} any more`,
  );
}

/**
 * What a retry may take: a file rejected whole holds nothing a flow can send again, so retried, its letter would wait
 * for ever (the fixed file dropped into the folder again is read as a new one). A flow-wide retry leaves such letters
 * out; one that names only them, or a retry of one of them by id, is refused with what to do instead.
 */
export function retryTarget(target: DeadLetterTarget, state: StateStore): DeadLetterTarget {
  const letters = state.deadLetters;
  const isFile = (id: number) => {
    const letter = letters.byId(id);
    // Whatever its status: a discarded file letter retried would wait for ever too.
    return letter !== null && isRejectedFileKey(letter.recordKey);
  };
  if ('id' in target) {
    if (isFile(target.id)) throw fileRetryRefusal([target.id]);
    return target;
  }
  const ids = target.ids ?? letters.matchingIds(target, ['open']);
  const files = ids.filter(isFile);
  if (files.length === 0) return target;
  if (files.length === ids.length) throw fileRetryRefusal(files);
  return { ...target, ids: ids.filter((id) => !files.includes(id)) };
}

function fileRetryRefusal(ids: readonly number[]): ControlError {
  const which = ids.map((id) => `#${id}`).join(', ');
  const discard =
    ids.length === 1 ? `supply-sync dead-letters discard ${ids[0]}` : 'supply-sync dead-letters discard <id>';
  return new ControlError(
    'dead_letter_is_file',
    `dead letter ${which} ${ids.length === 1 ? 'is a file' : 'are files'} rejected whole: nothing to send again; fix ` +
      `the file, drop it into the folder again (it is read as a new one), then \`${discard}\``,
  );
}
