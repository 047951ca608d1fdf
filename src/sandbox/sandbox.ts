/** Composes platform, domain, control plane and background loop into one running HTTP sandbox. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '../shared/clock.js';
import type { RouteDef, SandboxDomain } from './http/types.js';
import { MonotonicTimestamps } from './http/paging.js';
import { compileRoutes } from './http/router.js';
import type { CompiledRoute } from './http/router.js';
import { serializeProblem, writeReply } from './http/respond.js';
import { notFound } from './http/problem.js';
import { handleApi } from './http/api.js';
import type { PlatformContext } from './platform/context.js';
import { PlatformState } from './platform/state.js';
import { StateFile } from './platform/persistence.js';
import { createDemoClients } from './platform/keys.js';
import { newId, secretString } from './platform/ids.js';
import { RateLimiter } from './platform/rate-limit.js';
import { IdempotencyStore } from './platform/idempotency.js';
import { cleanupFiles, fileRoutes, fileServices } from './platform/files.js';
import { meRoute } from './platform/account.js';
import { auditRoutes } from './platform/audit.js';
import { eventFeedRoute } from './platform/events.js';
import { advanceExports, exportRoutes } from './platform/exports.js';
import { serveDownload } from './platform/downloads.js';
import { isAdvanceable } from './platform/manual-clock.js';
import { createDomain } from './domain/index.js';
import { WebhookDispatcher } from './webhooks/dispatcher.js';
import { webhookRoutes } from './webhooks/routes.js';
import { FaultInjector } from './control/faults.js';
import { Simulator } from './control/simulator.js';
import { handleControl } from './control/routes.js';
import { sandboxControl } from './control/client.js';
import type { RunningSandbox, SandboxOptions } from './options.js';
import { describeKeys } from './keys-info.js';

// Coalesces saves: a small domain snapshot is several hundred kB, so at most five saves a second under load. A
// large one (a million journal lines is over a gigabyte of JSON) takes seconds to write, so the wait after a save
// grows with it: at most a fifth of the time goes to saving.
const SAVE_DELAY_MS = 200;
const SAVE_SHARE = 5;
const PRUNE_EVERY_MS = 5_000;

export async function composeSandbox(options: SandboxOptions): Promise<RunningSandbox> {
  const clock = options.clock ?? systemClock;
  const state = new PlatformState();
  const stateFile = options.statePath === undefined ? null : new StateFile(options.statePath);
  let origin = '';
  let domain: SandboxDomain | null = null;
  let saveTimer: NodeJS.Timeout | null = null;
  let kickPending = false;
  const onError = options.onError ?? ((error: unknown) => console.error('sandbox: unexpected error', error));

  let saveDelayMs = SAVE_DELAY_MS;
  const save = () => {
    saveTimer = null;
    if (!stateFile) return;
    const started = performance.now();
    stateFile.save(state.snapshot(), domain?.liveSnapshot?.() ?? domain?.snapshot());
    saveDelayMs = Math.max(SAVE_DELAY_MS, (performance.now() - started) * (SAVE_SHARE - 1));
  };
  const ctx: PlatformContext = {
    state,
    clock,
    stamps: new MonotonicTimestamps(() => clock.now()),
    timeScale: options.timeScale ?? 1,
    allowHttpWebhooks: options.allowHttpWebhooks ?? false,
    rateLimitOverrides: options.rateLimitOverrides,
    origin: () => origin,
    domain: () => {
      if (!domain) throw new Error('sandbox domain not ready');
      return domain;
    },
    markDirty: () => {
      if (stateFile && !saveTimer) saveTimer = setTimeout(save, saveDelayMs);
    },
    putBlob: (id, data) => {
      state.blobs.set(id, data);
      stateFile?.putBlob(id, data);
    },
    deleteBlob: (id) => {
      state.blobs.delete(id);
      stateFile?.deleteBlob(id);
    },
    raise: (event) => dispatcher.enqueue(event),
    kick: () => {
      if (kickPending) return;
      kickPending = true;
      setImmediate(() => {
        kickPending = false;
        tick();
      });
    },
  };
  if (!(ctx.timeScale > 0)) throw new Error('timeScale must be a positive number');

  const dispatcher = new WebhookDispatcher(ctx);
  const faults = new FaultInjector();
  dispatcher.faults = faults;
  const limiter = new RateLimiter(() => clock.now());
  const idempotency = new IdempotencyStore(state, () => clock.now());
  domain = (options.createDomain ?? createDomain)({ clock, raise: ctx.raise, files: fileServices(ctx) });
  const saved = stateFile?.load() ?? null;
  if (saved) {
    state.restore(saved.platform);
    state.blobs = saved.blobs;
    if (saved.domain !== undefined && saved.domain !== null) domain.restore(saved.domain);
  } else {
    state.clients = createDemoClients(options.seed, clock.now());
    state.jwtSecret = secretString(48, options.seed, 'jwt');
    state.urlSecret = secretString(48, options.seed, 'url');
  }

  const platformRoutes: RouteDef[] = [
    meRoute(ctx),
    ...fileRoutes(ctx),
    ...webhookRoutes(ctx, dispatcher),
    ...auditRoutes(ctx),
    ...exportRoutes(ctx),
    eventFeedRoute(ctx),
  ];
  let compiled: CompiledRoute<RouteDef>[] = [];
  let compiledDomainCount = -1;
  const routes = () => {
    const current = ctx.domain().routes;
    if (current.length !== compiledDomainCount) {
      compiled = compileRoutes([...platformRoutes, ...current]);
      compiledDomainCount = current.length;
    }
    return compiled;
  };

  let lastPrune = clock.now();
  const tick = () => {
    try {
      dispatcher.tick();
      cleanupFiles(ctx);
      advanceExports(ctx);
      if (clock.now() - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = clock.now();
        idempotency.prune();
      }
    } catch (error) {
      onError(error);
    }
  };
  const simulator = new Simulator(
    () => ctx.domain().actions,
    () => {
      ctx.markDirty();
      ctx.kick();
    },
  );

  const { clients, keys } = describeKeys(state.clients);

  const controlDeps = {
    ctx,
    faults,
    simulator,
    onError,
    keys: () => ({ base_url: `${origin}/v2`, keys: clients }),
    reset: () => {
      simulator.stop();
      faults.clear();
      limiter.clear();
      state.clearActivity();
      stateFile?.clearBlobs();
      ctx.domain().reset();
      ctx.markDirty();
    },
    advanceClock: (ms: number) => {
      if (!isAdvanceable(clock)) return false;
      clock.advance(ms);
      tick();
      return true;
    },
    platformReadout: () => ({
      files: [...state.files.values()],
      webhooks: [...state.webhooks.values()].map(({ secret: _secret, ...rest }) => rest),
      deliveries: [...state.deliveries.values()],
      events: state.events.size,
      idempotency_entries: state.idempotency.size,
      audit_entries: state.audit.length,
      exports: [...state.exports.values()],
      faults: faults.current(),
      simulation: simulator.current(),
      now: new Date(clock.now()).toISOString(),
    }),
  };
  const apiDeps = { ctx, routes, limiter, idempotency, faults, onError };

  const server = createServer((req, res) => {
    const requestId = newId('req');
    const ip = req.socket.remoteAddress ?? '';
    const url = new URL(req.url ?? '/', origin || 'http://127.0.0.1');
    let work: Promise<void>;
    if (url.pathname === '/v2' || url.pathname.startsWith('/v2/')) {
      work = handleApi(apiDeps, req, res, url, requestId, ip);
    } else if (url.pathname.startsWith('/_sandbox/')) {
      work = handleControl(controlDeps, req, res, url, requestId, ip);
    } else if (url.pathname.startsWith('/downloads/')) {
      serveDownload(ctx, url, res, requestId);
      work = Promise.resolve();
    } else {
      writeReply(res, serializeProblem(notFound('Paths start with /v2.'), requestId, url.pathname), {
        'X-Request-Id': requestId,
      });
      work = Promise.resolve();
    }
    work.catch((error: unknown) => {
      onError(error);
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  if (stateFile) save();
  const interval = setInterval(tick, options.tickIntervalMs ?? 20);
  interval.unref();

  let closed: Promise<void> | null = null;
  return {
    baseUrl: `${origin}/v2`,
    controlUrl: `${origin}/_sandbox`,
    origin,
    port,
    keys,
    clients,
    clock,
    control: sandboxControl(`${origin}/_sandbox`),
    tick,
    close: () => {
      closed ??= (async () => {
        clearInterval(interval);
        simulator.stop();
        await dispatcher.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        if (saveTimer) clearTimeout(saveTimer);
        if (stateFile) {
          save();
          stateFile.close();
        }
      })();
      return closed;
    },
  };
}
