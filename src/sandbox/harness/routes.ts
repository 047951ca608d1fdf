/**
 * The sandbox's harness, the routes under /_sandbox/ (loopback only, no API key) that tests and the demo drive it
 * with beside the API it plays: reset, actions, state, faults, simulate, clock.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { DEMO_BUYER_ACCOUNT_ID, DEMO_SUPPLIER_ACCOUNT_ID, ProblemError } from '../http/types.js';
import type { AccountRegistry, Reply, SandboxDomain } from '../http/types.js';
import { notFound, validationError } from '../http/problem.js';
import { parseBody, readBody } from '../http/body.js';
import { internalError, serializeProblem, serializeReply, writeReply } from '../http/respond.js';
import { isLoopback } from '../platform/ip.js';
import type { PlatformContext } from '../platform/context.js';
import type { FaultInjector } from './faults.js';
import type { Simulator } from './simulator.js';
import { parseNewAccount, presentAccount } from './accounts.js';

export interface ControlDeps {
  ctx: PlatformContext;
  accounts: AccountRegistry;
  faults: FaultInjector;
  simulator: Simulator;
  reset(): void;
  /** False when the sandbox runs on a clock that cannot be advanced. */
  advanceClock(ms: number): boolean;
  platformReadout(): Record<string, unknown>;
  keys(): unknown;
  onError(error: unknown): void;
}

type ControlHandler = (deps: ControlDeps, body: unknown, query: URLSearchParams) => Reply | Promise<Reply>;

const ok = (body: unknown): Reply => ({ status: 200, body });

/** The domain of the world `?account=` names: a created account's, else (absent or a demo account) the demo's. */
function domainOf(deps: ControlDeps, query: URLSearchParams): SandboxDomain {
  const accountId = query.get('account');
  if (accountId === null || accountId === DEMO_BUYER_ACCOUNT_ID || accountId === DEMO_SUPPLIER_ACCOUNT_ID)
    return deps.ctx.domain();
  if (accountId === '')
    throw notFound(
      '?account= is empty: leave it out for the demo world, or give an id from GET /_sandbox/accounts.',
    );
  const world = deps.accounts.worldOf(accountId);
  if (world === null)
    throw notFound(`No account ${accountId}; GET /_sandbox/accounts lists the created ones.`);
  return world.domain;
}

function advanceClock(deps: ControlDeps, body: unknown): Reply {
  const advance = (body as { advance_ms?: unknown } | undefined)?.advance_ms;
  if (typeof advance !== 'number' || !Number.isFinite(advance) || advance < 0) {
    throw validationError([{ field: 'advance_ms', code: 'out_of_range', message: 'A non-negative number.' }]);
  }
  if (!deps.advanceClock(advance)) {
    throw new ProblemError(
      409,
      'conflict',
      'This sandbox runs on the system clock; start it with a manual clock.',
    );
  }
  return ok({ now: new Date(deps.ctx.clock.now()).toISOString() });
}

const CONTROL_ROUTES: Readonly<Record<string, ControlHandler>> = {
  'POST reset': (deps) => {
    deps.reset();
    return ok({ reset: true });
  },
  'GET state': (deps, _body, query) =>
    ok({ ...domainOf(deps, query).readout(), platform: deps.platformReadout() }),
  'GET keys': (deps) => ok(deps.keys()),
  'GET accounts': (deps) =>
    ok({ accounts: deps.accounts.list().map((account) => presentAccount(deps.ctx, account)) }),
  'POST accounts': (deps, body) => {
    const { account } = deps.accounts.create(parseNewAccount(body));
    deps.ctx.markDirty();
    return { status: 201, body: presentAccount(deps.ctx, account) };
  },
  'GET faults': (deps) => ok(deps.faults.current()),
  'POST faults': (deps, body) => ok(deps.faults.configure(body)),
  'DELETE faults': (deps) => {
    deps.faults.clear();
    return { status: 204 };
  },
  'GET simulate': (deps) => ok(deps.simulator.current()),
  'POST simulate': (deps, body) => ok(deps.simulator.start(body)),
  'DELETE simulate': (deps) => ok(deps.simulator.stop()),
  'POST clock': advanceClock,
  'GET actions': (deps, _body, query) => ok({ actions: Object.keys(domainOf(deps, query).actions) }),
};

async function runAction(
  deps: ControlDeps,
  name: string,
  body: unknown,
  query: URLSearchParams,
): Promise<Reply> {
  const handler = domainOf(deps, query).actions[name];
  if (!handler) throw notFound(`No control action ${name}.`);
  const result = await handler(body ?? {});
  deps.ctx.markDirty();
  deps.ctx.kick();
  return ok(result ?? { ok: true });
}

/** The calls that act on one world; `?account=` anywhere else would be ignored, so it is refused. */
const WORLD_CALLS = /^(GET state|GET actions|POST actions\/.+)$/;

function route(deps: ControlDeps, method: string, name: string, body: unknown, query: URLSearchParams) {
  if (query.has('account') && !WORLD_CALLS.test(`${method} ${name}`)) {
    throw validationError(
      [{ field: 'account', code: 'unsupported_value', message: 'Only state and actions act on one world.' }],
      `${method} /_sandbox/${name} takes no ?account=: it acts on the whole sandbox.`,
      400,
    );
  }
  const handler = CONTROL_ROUTES[`${method} ${name}`];
  if (handler) return handler(deps, body, query);
  const action = /^actions\/([A-Za-z0-9_.-]+)$/.exec(name);
  if (method === 'POST' && action?.[1]) return runAction(deps, action[1], body, query);
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
    // Every harness body is JSON, whatever the content type: `curl -d '{"count":3}'` sends it as a form, which
    // would otherwise arrive as one meaningless field and let the action run with its defaults.
    const { body } = await parseBody(await readBody(req), 'application/json', true);
    reply = serializeReply(await route(deps, method, name, body, url.searchParams));
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
