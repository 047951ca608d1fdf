/**
 * The control API on the operations server: the same commands as the CLI, queued in the state for the daemon that
 * leads (this one, or on a standby the other instance) and answered when carried out. Every call is logged with
 * its caller; the commands table keeps each change with who asked for it, when, and how it ended.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { controlAuth, isJsonRequest, sendControlRefusal } from '../../ops/control-auth.js';
import { deepScrub } from '../../log/index.js';
import type { QueuedCommand } from '../../state/index.js';
import { actionArgs, type ControlAction } from './actions.js';
import {
  CONTROL_ROUTES,
  type ControlReply,
  type ControlRequest,
  type ControlRoute,
  type RouteContext,
} from './control-routes.js';
import type { ControlApiOptions } from './control-options.js';
import { configFingerprint } from './fingerprint.js';
import { askCommand, bindToOpenLetters, queueLimits } from './command-queue.js';
import { decodePathParams, decodeQuery } from './request-parts.js';
import { readJsonBody } from './request-body.js';

/** How long a change is waited for before the answer is 202 with the command to poll. */
const CHANGE_WAIT_MS = 10_000;
/** A run now with ?wait=true. */
const RUN_WAIT_MS = 15 * 60_000;
const POLL_MS = 20;

export type ControlHandler = (req: IncomingMessage, res: ServerResponse, path: string) => Promise<boolean>;

/** The handler, or undefined when the control API is not served (no server.auth user and no local token). */
export function createControlApi(options: ControlApiOptions): ControlHandler | undefined {
  const caller = controlAuth(options.auth);
  if (caller === null) return undefined;
  const fingerprint = configFingerprint(options.loaded.config);
  return async (req, res, path) => {
    const found = matchRoute(req.method ?? 'GET', path);
    if (found === undefined) return false;
    const who = caller(req, found.route.method);
    if (!who.ok) {
      logCall(options.logger, { who: who.who, method: req.method, path, status: who.status });
      sendControlRefusal(res, options.auth, who);
      return true;
    }
    const reply = await answer(req, found, who.who, {
      options,
      give: (action, wait) => give(options, fingerprint, who.who, action, wait),
    });
    logCall(options.logger, { who: who.who, method: req.method, path, status: reply.status });
    send(res, { ...reply, body: deepScrub(reply.body, options.knownSecrets()) });
    return true;
  };
}

/** The route's answer to an authorised caller: a 400/413/415 for a request it cannot read, else the handler's. */
async function answer(
  req: IncomingMessage,
  found: { route: ControlRoute; params: Record<string, string> },
  who: string,
  context: RouteContext,
): Promise<ControlReply> {
  const parts = requestParts(req, found.route.method, found.params);
  if ('status' in parts) return parts;
  const body = found.route.method === 'POST' ? await readJsonBody(req) : { ok: true as const, value: {} };
  if (!body.ok) return body.reply;
  return found.route.handle({ ...parts, body: body.value, who }, context);
}

/** The path parameters and query, decoded; a 400 naming the part that cannot be, or a 415 for a form post. */
function requestParts(
  req: IncomingMessage,
  method: string,
  raw: Record<string, string>,
): Pick<ControlRequest, 'params' | 'query'> | ControlReply {
  if (method === 'POST' && !isJsonRequest(req)) {
    return {
      status: 415,
      body: { error: 'json_required', detail: 'send changes as application/json (a cross-site form cannot)' },
    };
  }
  const params = decodePathParams(raw);
  if (!params.ok) return { status: 400, body: { error: 'usage', detail: params.problem } };
  const query = decodeQuery(req.url ?? '/');
  if (!query.ok) return { status: 400, body: { error: 'usage', detail: query.problem } };
  return { params: params.value, query: query.value };
}

function logCall(
  logger: Logger,
  call: { who: string; method: string | undefined; path: string; status: number },
): void {
  logger.info(call, 'control API call');
}

function matchRoute(method: string, path: string) {
  for (const route of CONTROL_ROUTES) {
    if (route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match !== null) return { route, params: (match.groups ?? {}) as Record<string, string> };
  }
  return undefined;
}

function send(res: ServerResponse, reply: ControlReply): void {
  res.writeHead(reply.status, {
    'content-type': 'application/json; charset=utf-8',
    'cache-control': 'no-store',
    ...(reply.status === 401 ? { 'www-authenticate': 'Bearer realm="supply-sync"' } : {}),
    // The rest of a body too large was not read: the connection cannot carry another request.
    ...(reply.status === 413 ? { connection: 'close' } : {}),
    ...(reply.location === undefined ? {} : { location: reply.location }),
    ...(reply.retryAfter === undefined ? {} : { 'retry-after': String(reply.retryAfter) }),
  });
  res.end(JSON.stringify(reply.body));
}

/**
 * Queues the action (or finds the identical one pending) and waits for it (up to a bound): one code path with the
 * CLI's. Rejects with a ControlError when the queue refuses it.
 */
async function give(
  options: ControlApiOptions,
  fingerprint: string,
  who: string,
  action: ControlAction,
  wait: boolean,
): Promise<QueuedCommand> {
  const { queue } = options;
  const bound = bindToOpenLetters(action, queue);
  const { id } = askCommand(
    queue,
    { kind: bound.kind, args: actionArgs(bound), fingerprint, requestedBy: who },
    queueLimits(options.loaded.config),
  );
  options.kick();
  const command = queue.commands.get(id);
  if (command === null) throw new Error(`command #${id} was not stored`);
  if (!wait) return command;
  const until = Date.now() + (action.kind === 'sync' ? RUN_WAIT_MS : CHANGE_WAIT_MS);
  for (;;) {
    const now = queue.commands.get(id) ?? command;
    if (now.status === 'done' || now.status === 'failed' || Date.now() > until) return now;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
