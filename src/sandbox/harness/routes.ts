/**
 * The sandbox's harness, the routes under /_sandbox/ (loopback only, no API key) that tests and the demo drive it
 * with beside the API it plays: reset, actions, state, faults, simulate, clock.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ProblemError } from '../http/types.js';
import type { Reply } from '../http/types.js';
import { notFound, validationError } from '../http/problem.js';
import { parseBody, readBody } from '../http/body.js';
import { internalError, serializeProblem, serializeReply, writeReply } from '../http/respond.js';
import { isLoopback } from '../platform/ip.js';
import type { PlatformContext } from '../platform/context.js';
import type { FaultInjector } from './faults.js';
import type { Simulator } from './simulator.js';

export interface ControlDeps {
  ctx: PlatformContext;
  faults: FaultInjector;
  simulator: Simulator;
  reset(): void;
  /** False when the sandbox runs on a clock that cannot be advanced. */
  advanceClock(ms: number): boolean;
  platformReadout(): Record<string, unknown>;
  keys(): unknown;
  onError(error: unknown): void;
}

async function route(deps: ControlDeps, method: string, name: string, body: unknown): Promise<Reply> {
  const { ctx } = deps;
  if (method === 'POST' && name === 'reset') {
    deps.reset();
    return { status: 200, body: { reset: true } };
  }
  if (method === 'GET' && name === 'state') {
    return { status: 200, body: { ...ctx.domain().readout(), platform: deps.platformReadout() } };
  }
  if (method === 'GET' && name === 'keys') return { status: 200, body: deps.keys() };
  if (method === 'GET' && name === 'faults') return { status: 200, body: deps.faults.current() };
  if (method === 'POST' && name === 'faults') return { status: 200, body: deps.faults.configure(body) };
  if (method === 'DELETE' && name === 'faults') {
    deps.faults.clear();
    return { status: 204 };
  }
  if (method === 'GET' && name === 'simulate') return { status: 200, body: deps.simulator.current() };
  if (method === 'POST' && name === 'simulate') return { status: 200, body: deps.simulator.start(body) };
  if (method === 'DELETE' && name === 'simulate') return { status: 200, body: deps.simulator.stop() };
  if (method === 'POST' && name === 'clock') {
    const advance = (body as { advance_ms?: unknown } | undefined)?.advance_ms;
    if (typeof advance !== 'number' || !Number.isFinite(advance) || advance < 0) {
      throw validationError([
        { field: 'advance_ms', code: 'out_of_range', message: 'A non-negative number.' },
      ]);
    }
    if (!deps.advanceClock(advance)) {
      throw new ProblemError(
        409,
        'conflict',
        'This sandbox runs on the system clock; start it with a manual clock.',
      );
    }
    return { status: 200, body: { now: new Date(ctx.clock.now()).toISOString() } };
  }
  if (method === 'GET' && name === 'actions')
    return { status: 200, body: { actions: Object.keys(ctx.domain().actions) } };
  const action = /^actions\/([A-Za-z0-9_.-]+)$/.exec(name);
  if (method === 'POST' && action?.[1]) {
    const handler = ctx.domain().actions[action[1]];
    if (!handler) throw notFound(`No control action ${action[1]}.`);
    const result = await handler(body ?? {});
    ctx.markDirty();
    ctx.kick();
    return { status: 200, body: result ?? { ok: true } };
  }
  throw notFound(`No control endpoint ${method} /_sandbox/${name}.`);
}

export async function handleControl(
  deps: ControlDeps,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  requestId: string,
  ip: string,
): Promise<void> {
  const method = (req.method ?? 'GET').toUpperCase();
  const name = url.pathname.slice('/_sandbox/'.length).replace(/\/$/, '');
  let reply;
  try {
    if (!isLoopback(ip))
      throw new ProblemError(403, 'ip_not_allowed', 'The control plane answers loopback callers only.');
    const { body } = await parseBody(await readBody(req), req.headers['content-type']);
    reply = serializeReply(await route(deps, method, name, body));
  } catch (error) {
    if (!(error instanceof ProblemError)) deps.onError(error);
    reply = serializeProblem(
      error instanceof ProblemError ? error : internalError(),
      requestId,
      url.pathname,
    );
  }
  writeReply(res, reply, { 'X-Request-Id': requestId });
}
