/** The control API's routes: each turns a request into a command (or a read) and its answer. */
import type { QueuedCommand } from '../../state/index.js';
import { ControlError, type ControlAction } from './actions.js';
import type { ControlApiOptions } from './control-options.js';
import { requireNotPaused } from './paused-refusal.js';
import { statusOfCode } from './outcome-codes.js';
import { QueueFullError } from './command-queue.js';
import { requireJob } from './state-actions.js';
import type { ControlReply } from './control-reply.js';
import {
  CURSOR_RESET_BODY,
  DEAD_LETTER_GROUP_BODY,
  EMPTY_BODY,
  PAUSE_BODY,
  parseBody,
  type BodySpec,
} from './request-body.js';

export interface ControlRequest {
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  /** The body as JSON, not checked yet: each route parses it with its BodySpec. */
  readonly body: unknown;
  readonly who: string;
}

export interface RouteContext {
  readonly options: ControlApiOptions;
  readonly give: (action: ControlAction, wait: boolean) => Promise<QueuedCommand>;
}

export interface ControlRoute {
  readonly method: 'GET' | 'POST';
  /** The OpenAPI path (docs/control-api.json), e.g. /jobs/{job}/run. */
  readonly path: string;
  readonly pattern: RegExp;
  handle(request: ControlRequest, context: RouteContext): Promise<ControlReply>;
}

/** A finished command as 200 or its refusal's status; an unfinished one as 202 with where to ask again. */
export function commandReply(command: QueuedCommand): ControlReply {
  const body = {
    command: command.id,
    kind: command.kind,
    status: command.status,
    requestedBy: command.requestedBy,
    attempts: command.attempts,
    ...(command.status === 'done' ? { result: command.result } : {}),
    ...(command.status === 'failed' ? { error: command.errorCode, detail: command.error } : {}),
  };
  if (command.status === 'done') return { status: 200, body };
  if (command.status === 'failed') return { status: statusOfCode(command.errorCode), body };
  return { status: 202, body, location: `/commands/${command.id}` };
}

const segment = (name: string) => `(?<${name}>[^/]+)`;
const route = (path: string): RegExp =>
  new RegExp(`^${path.replace(/\{(\w+)\}/g, (_all, name: string) => segment(name))}$`);
/** A path parameter, decoded already (a malformed one was answered 400). */
const param = (request: ControlRequest, name: string): string => request.params[name] ?? '';
/** A refusal given before anything is queued, with the status its code maps to. */
function refusal(error: unknown): ControlReply {
  if (!(error instanceof ControlError)) throw error;
  const reply = { status: statusOfCode(error.code), body: { error: error.code, detail: error.message } };
  if (!(error instanceof QueueFullError)) return reply;
  return { ...reply, body: { ...reply.body, command: error.pending }, retryAfter: error.retryAfterSeconds };
}

/**
 * A route that queues a command, once its body is what the route takes; a run now is only waited for with
 * ?wait=true, a change always (up to a bound).
 */
const command =
  <B>(
    path: string,
    body: BodySpec<B>,
    action: (request: ControlRequest, body: B, options: ControlApiOptions) => ControlAction | ControlReply,
    waitByDefault = true,
  ) =>
  (method: 'POST'): ControlRoute => ({
    method,
    path,
    pattern: route(path),
    handle: async (request, context) => {
      const parsed = parseBody(body, request.body);
      if (!parsed.ok) return parsed.reply;
      const made = action(request, parsed.value, context.options);
      if ('status' in made) return made;
      const wait = waitByDefault || request.query.get('wait') === 'true';
      try {
        return commandReply(await context.give(made, wait));
      } catch (error) {
        return refusal(error);
      }
    },
  });

/**
 * A run now of a job the config does not name, or that is disabled or paused, is refused before it is queued (also
 * without ?wait=true); the daemon checks again when it carries the run out.
 */
function runNow(job: string, options: ControlApiOptions): ControlAction | ControlReply {
  const { file, config } = options.loaded;
  try {
    requireJob(job, { file, jobs: Object.keys(config.jobs) });
    if (config.jobs[job]?.enabled === false) {
      throw new ControlError('job_disabled', `job "${job}" is disabled in ${file}`);
    }
    requireNotPaused(job, options.queue, config.timezone);
  } catch (error) {
    return refusal(error);
  }
  return { kind: 'sync', job };
}

/** An unknown job is a 404 when the command is asked, not when it is carried out. */
function knownJob(
  job: string,
  options: ControlApiOptions,
  action: (job: string) => ControlAction,
): ControlAction | ControlReply {
  try {
    requireJob(job, { file: options.loaded.file, jobs: Object.keys(options.loaded.config.jobs) });
  } catch (error) {
    return refusal(error);
  }
  return action(job);
}

function knownCursor(stream: string, options: ControlApiOptions): ControlAction | ControlReply {
  if (options.queue.cursors.get(stream) !== null) return { kind: 'cursor.reset', stream };
  return refusal(
    new ControlError('cursor_not_found', `no cursor named "${stream}"; see \`supply-sync cursor list\``),
  );
}

function deadLetterId(request: ControlRequest, options: ControlApiOptions): number | ControlReply {
  const id = param(request, 'id');
  if (/^\d+$/.test(id) && options.queue.deadLetters.byId(Number(id)) !== null) return Number(id);
  const why = /^\d+$/.test(id) ? '' : ': ids are numbers';
  return refusal(new ControlError('dead_letter_not_found', `no dead letter #${id}${why}`));
}

/** An empty reason is stored as no reason, as a null or absent one is. */
const reasonOf = (reason: string | null | undefined): string | null =>
  reason === undefined || reason === '' ? null : reason;

export const CONTROL_ROUTES: readonly ControlRoute[] = [
  command(
    '/jobs/{job}/run',
    EMPTY_BODY,
    (r, _body, options) => runNow(param(r, 'job'), options),
    false,
  )('POST'),
  command('/jobs/{job}/pause', PAUSE_BODY, (r, body, options) =>
    knownJob(param(r, 'job'), options, (job) => ({ kind: 'jobs.pause', job, reason: reasonOf(body.reason) })),
  )('POST'),
  command('/jobs/{job}/resume', EMPTY_BODY, (r, _body, options) =>
    knownJob(param(r, 'job'), options, (job) => ({ kind: 'jobs.resume', job })),
  )('POST'),
  ...(['retry', 'discard'] as const).map((verb) =>
    command(`/dead-letters/{id}/${verb}`, EMPTY_BODY, (r, _body, options) => {
      const id = deadLetterId(r, options);
      return typeof id === 'number' ? { kind: `dead-letters.${verb}` as const, target: { id } } : id;
    })('POST'),
  ),
  ...(['retry', 'discard'] as const).map((verb) =>
    command(`/dead-letters/${verb}`, DEAD_LETTER_GROUP_BODY, (_r, { flow, reason, missing }) => {
      const why = reasonOf(reason);
      return {
        kind: `dead-letters.${verb}` as const,
        target: {
          flow,
          ...(why === null ? {} : { reason: why }),
          ...(missing === undefined || missing === null ? {} : { missing }),
        },
      };
    })('POST'),
  ),
  command('/cursors/{stream}/reset', CURSOR_RESET_BODY, (r, _body, options) =>
    knownCursor(param(r, 'stream'), options),
  )('POST'),
  command('/config/reload', EMPTY_BODY, () => ({ kind: 'config.reload' }))('POST'),
  {
    method: 'POST',
    path: '/commands/{id}/cancel',
    pattern: route('/commands/{id}/cancel'),
    handle: async (request, { options }) => {
      const parsed = parseBody(EMPTY_BODY, request.body);
      if (!parsed.ok) return parsed.reply;
      return cancelCommand(param(request, 'id'), request.who, options);
    },
  },
  ...readRoutes(),
];

/** Cancels a command still waiting: 200 with it recorded `cancelled`; 404 unknown; 409 taken or finished. */
function cancelCommand(text: string, who: string, options: ControlApiOptions): Promise<ControlReply> {
  const { commands } = options.queue;
  const id = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  const cancelled = Number.isInteger(id) && options.queue.transaction(() => commands.cancel(id, who));
  const found = Number.isInteger(id) ? commands.get(id) : null;
  if (found === null)
    return Promise.resolve(refusal(new ControlError('command_not_found', `no command ${text}`)));
  if (cancelled) return Promise.resolve({ status: 200, body: commandReply(found).body });
  const why = found.status === 'running' ? 'a daemon is carrying it out' : `it is finished (${found.status})`;
  return Promise.resolve(
    refusal(new ControlError('command_not_pending', `command #${id} cannot be cancelled: ${why}`)),
  );
}

/** A whole-number query parameter: undefined when absent, a 400 naming it when it is not one in range. */
function whole(
  query: URLSearchParams,
  name: string,
  min: number,
  max: number,
  expected: string,
): number | undefined | ControlReply {
  const text = query.get(name);
  if (text === null) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (value >= min && value <= max) return value;
  return { status: 400, body: { error: 'usage', detail: `${name}: expected ${expected}, got "${text}"` } };
}

function readRoutes(): ControlRoute[] {
  const get = (path: string, handle: ControlRoute['handle']): ControlRoute => ({
    method: 'GET',
    path,
    pattern: route(path),
    handle,
  });
  return [
    get('/jobs', async (_request, { options }) => ({
      status: 200,
      body: { jobs: await options.providers.jobs() },
    })),
    get('/runs', async (request, { options }) => {
      const job = request.query.get('job');
      if (job !== null) {
        const { file, config } = options.loaded;
        try {
          requireJob(job, { file, jobs: Object.keys(config.jobs) });
        } catch (error) {
          return refusal(error);
        }
      }
      const since = whole(request.query, 'since', 0, Number.MAX_SAFE_INTEGER, 'a time in epoch milliseconds');
      if (typeof since === 'object') return since;
      const limit = whole(request.query, 'limit', 1, 1000, 'a whole number from 1 to 1000');
      if (typeof limit === 'object') return limit;
      const runs = options.queue.runs.list({
        ...(job === null ? {} : { job }),
        failed: request.query.get('failed') === 'true',
        ...(since === undefined ? {} : { since }),
        limit: limit ?? 100,
      });
      return { status: 200, body: { runs } };
    }),
    get('/dead-letters', async (request, { options }) => {
      const flow = request.query.get('flow');
      const letters = options.queue.deadLetters.list({ ...(flow === null ? {} : { flow }) });
      return { status: 200, body: { deadLetters: letters } };
    }),
    get('/commands', async (request, { options }) => {
      const limit = whole(request.query, 'limit', 1, 1000, 'a whole number from 1 to 1000');
      if (typeof limit === 'object') return limit;
      const all = request.query.get('all') === 'true';
      const commands = options.queue.commands.list({ unfinishedOnly: !all, limit: limit ?? 100 });
      return { status: 200, body: { commands: commands.map((c) => commandReply(c).body) } };
    }),
    get('/commands/{id}', async (request, { options }) => {
      const id = Number(param(request, 'id'));
      const found = Number.isInteger(id) ? options.queue.commands.get(id) : null;
      if (found === null) {
        return {
          status: 404,
          body: { error: 'command_not_found', detail: `no command ${param(request, 'id')}` },
        };
      }
      return commandReply(found);
    }),
  ];
}

export type { ControlReply } from './control-reply.js';
