/** Composes platform, domain, control plane and background loop into one running HTTP sandbox. */
import type { Server } from 'node:http';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import type { SandboxDomain } from './http/types.js';
import { PlatformState } from './platform/state.js';
import { StateFile } from './platform/persistence.js';
import { RateLimiter } from './platform/rate-limit.js';
import { IdempotencyStore } from './platform/idempotency.js';
import { fileServices } from './platform/files.js';
import { createDomain } from './domain/index.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { FaultInjector } from './harness/faults.js';
import { Simulator } from './harness/simulator.js';
import { sandboxControl } from './harness/client.js';
import type { RunningSandbox, SandboxKeyInfo, SandboxKeys, SandboxOptions } from './options.js';
import { describeKeys, keysDocument } from './keys-info.js';
import { createPlatformContext } from './compose/context.js';
import { StateSaver, restoreOrSeed } from './compose/saved-state.js';
import { SandboxAccounts } from './compose/accounts.js';
import type { PlatformContext } from './platform/context.js';
import { apiRouteTable } from './compose/api-routes.js';
import { backgroundTick } from './compose/background.js';
import { controlPlane } from './compose/control-plane.js';
import { closeServer, createSandboxServer, listen } from './compose/server.js';

/** Every part of a sandbox, wired together, not yet listening. */
interface AssembledSandbox {
  clock: Clock;
  server: Server;
  dispatcher: WebhookDispatcher;
  simulator: Simulator;
  saver: StateSaver;
  keys: SandboxKeys;
  clients: SandboxKeyInfo[];
  tick(): void;
  /** Known once the server listens; requests and links are addressed with it. */
  address: { origin: string };
}

export async function composeSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const sandbox = assembleSandbox(options);
  const port = await listen(sandbox.server, options.port ?? 0);
  const origin = `http://127.0.0.1:${port}`;
  sandbox.address.origin = origin;
  sandbox.saver.save();
  const interval = setInterval(sandbox.tick, options.tickIntervalMs ?? 20);
  interval.unref();

  let closed: Promise<void> | null = null;
  return {
    baseUrl: `${origin}/v2`,
    controlUrl: `${origin}/_sandbox`,
    origin,
    port,
    keys: sandbox.keys,
    clients: sandbox.clients,
    clock: sandbox.clock,
    control: sandboxControl(`${origin}/_sandbox`),
    tick: sandbox.tick,
    close: () => (closed ??= shutdown(sandbox, interval)),
  };
}

interface Worlds {
  /** The demo world, which the demo accounts share. */
  domain: SandboxDomain;
  /** The accounts created through the harness, each with a world of its own. */
  accounts: SandboxAccounts;
}

function createWorlds(options: SandboxOptions, ctx: PlatformContext): Worlds {
  const services = { clock: ctx.clock, raise: ctx.raise, files: fileServices(ctx) };
  const create = options.createDomain ?? createDomain;
  const accounts = new SandboxAccounts({
    createDomain: create,
    services,
    state: ctx.state,
    keySeed: options.seed,
    now: () => ctx.clock.now(),
  });
  return { domain: create(services), accounts };
}

function assembleSandbox(options: SandboxOptions): AssembledSandbox {
  const clock = options.clock ?? systemClock;
  const state = new PlatformState();
  const file = options.statePath === undefined ? null : new StateFile(options.statePath);
  const onError = options.onError ?? ((error: unknown) => console.error('sandbox: unexpected error', error));
  const address = { origin: '' };
  let worlds: Worlds | null = null;
  const saver = new StateSaver(
    file,
    state,
    () => worlds?.domain ?? null,
    () => worlds?.accounts ?? null,
  );
  const ctx = createPlatformContext({
    state,
    clock,
    options,
    file,
    saver,
    origin: () => address.origin,
    domain: () => worlds?.domain ?? null,
    worldOf: (accountId) => worlds?.accounts.worldOf(accountId) ?? null,
    raise: (event) => dispatcher.enqueue(event),
    tick: () => tick(),
  });

  const dispatcher = new WebhookDispatcher(ctx);
  const faults = new FaultInjector();
  dispatcher.faults = faults;
  const limiter = new RateLimiter(() => clock.now());
  const idempotency = new IdempotencyStore(state, () => clock.now());
  worlds = createWorlds(options, ctx);
  restoreOrSeed(state, file, worlds, options.seed, clock.now());

  const routes = apiRouteTable(ctx, dispatcher);
  const tick = backgroundTick(ctx, dispatcher, idempotency, onError);
  const simulator = new Simulator(
    () => ctx.domain().actions,
    () => {
      ctx.markDirty();
      ctx.kick();
    },
  );
  const { clients, keys } = describeKeys(state.clients);
  const control = controlPlane({
    ctx,
    accounts: worlds.accounts,
    faults,
    simulator,
    limiter,
    file,
    onError,
    tick,
    keys: () => keysDocument(address.origin, state.clients),
  });
  const api = { ctx, routes, limiter, idempotency, faults, onError };
  const server = createSandboxServer({ ctx, api, control, onError });
  return { clock, server, dispatcher, simulator, saver, keys, clients, tick, address };
}

async function shutdown(sandbox: AssembledSandbox, interval: NodeJS.Timeout): Promise<void> {
  clearInterval(interval);
  sandbox.simulator.stop();
  await sandbox.dispatcher.close();
  await closeServer(sandbox.server);
  sandbox.saver.close();
}
