/**
 * A daemon start that fails at any step stops every service started before it, in reverse, and reports the start
 * error: right after, a new daemon starts on the same ports and the same state file, and no timer, listener or
 * socket of the failed start is left behind. Real causes where there are some (ops or webhook port taken,
 * unusable certificate, broken connector); a failure injected through the lifecycle observer for every step.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import {
  buildPluginRegistry,
  runDaemon,
  type Daemon,
  type LifecycleObserver,
} from '../../src/daemon/index.js';
import { DaemonStartError } from '../../src/daemon/start/start-errors.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { openStateStore } from '../../src/state/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { eventBody } from '../webhooks/support.js';
import { freePort } from '../support/free-port.js';

/** The environment's parts for the config below (one API side, one connector), opened as the group "environment". */
const ENVIRONMENT_PARTS = [
  'state store',
  'API endpoint',
  'supplier API client',
  'connector erp',
  'built jobs',
];
/** The services that run jobs, started as the group "jobs" (notifications join them when configured). */
const JOB_SERVICES = ['scheduler', 'webhook dispatch', 'state housekeeping', 'operator commands'];
/** The services each group starts, after it is about to start and before it counts as started. */
const GROUPS: Record<string, readonly string[]> = { environment: ENVIRONMENT_PARTS, jobs: JOB_SERVICES };

/** Every service of the daemon in start order: the environment's group first, the jobs group last. */
const SERVICES = [
  ...ENVIRONMENT_PARTS,
  'environment',
  'webhook inbox',
  'pre-flight gate',
  'connector health',
  'metrics and API probe',
  'webhook intake',
  'ops server',
  'embedded webhook registration',
  ...JOB_SERVICES,
  'jobs',
];
/** The stop order: the reverse, each group stopping its own services (in reverse) before it counts as stopped. */
const STOP_ORDER = [
  ...[...JOB_SERVICES].reverse(),
  'jobs',
  'embedded webhook registration',
  'ops server',
  'webhook intake',
  'metrics and API probe',
  'connector health',
  'pre-flight gate',
  'webhook inbox',
  ...[...ENVIRONMENT_PARTS].reverse(),
  'environment',
];

/** The services started when `failing` is about to start (a group is about to start before its own services). */
function startedBefore(failing: string): string[] {
  const grouped = GROUPS[failing] ?? [];
  return SERVICES.slice(0, SERVICES.indexOf(failing)).filter((name) => !grouped.includes(name));
}

/** The stop order of the services of `started`. */
function stopOrderOf(started: readonly string[]): string[] {
  return STOP_ORDER.filter((name) => started.includes(name));
}

const SECRET = 'whsec_start_failure_test_0123456789';
let eventSeq = 0;
let dir: string;
let sandbox: RunningSandbox;
let opsPort: number;
let webhookPort: number;

async function occupy(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

function release(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'supply-sync-start-failure-'));
  sandbox = await startSandbox({});
  const erp = new Database(join(dir, 'erp.sqlite'));
  erp.exec(`
    CREATE TABLE items (sku TEXT PRIMARY KEY, name TEXT, unit TEXT);
    CREATE TABLE orders (no TEXT PRIMARY KEY, api_order_id TEXT NOT NULL UNIQUE);
    CREATE TABLE order_lines (no TEXT, item TEXT, price NUMERIC);`);
  erp.close();
  opsPort = await freePort();
  webhookPort = await freePort();
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await rm(dir, { recursive: true, force: true });
});

/** A supplier daemon with a scheduled job, a connector, its own webhook port and a fixed ops port. */
async function writeConfig(
  name: string,
  options: { serverLines?: string[]; erpFile?: string; statePath?: string } = {},
) {
  const file = join(dir, `${name}.yaml`);
  await writeFile(
    file,
    [
      'api:',
      `  base_url: ${sandbox.baseUrl}`,
      `  api_key: ${sandbox.keys.supplier}`,
      'state:',
      `  path: ${options.statePath ?? 'state/daemon.db'}`,
      'server:',
      `  port: ${opsPort}`,
      `  webhook_secrets: ['${SECRET}']`,
      '  webhooks:',
      `    port: ${webhookPort}`,
      ...(options.serverLines ?? []),
      'log:',
      '  level: silent',
      'connectors:',
      '  erp:',
      '    type: sql',
      `    connection: { driver: sqlite, file: ${options.erpFile ?? 'erp.sqlite'} }`,
      '    statements:',
      '      catalog:',
      '        products: SELECT sku, name, unit FROM items',
      '      orders:',
      '        find: SELECT no AS erp_order_number FROM orders WHERE api_order_id = :api_order_id',
      "        insert_header: INSERT INTO orders (no, api_order_id) VALUES ('E-' || :api_order_id, :api_order_id)",
      '        insert_line: INSERT INTO order_lines (no, item, price) VALUES (:erp_order_number, :item_code, :unit_price)',
      'jobs:',
      '  orders:',
      '    flow: orders',
      '    connector: erp',
      "    schedule: '*/5 * * * *'",
      '  catalog:',
      '    flow: catalog',
      '    connector: erp',
      "    schedule: '0 2 * * *'",
      '',
    ].join('\n'),
  );
  return file;
}

/** Starts a daemon, recording each service started and stopped; `failAt` makes that service's start fail. */
async function start(file: string, failAt?: string, catchUp = false) {
  const started: string[] = [];
  const stopped: string[] = [];
  const injected = new Error(`injected failure at ${failAt ?? 'nothing'}`);
  const observer: LifecycleObserver = {
    starting: (name) => {
      if (name === failAt) throw injected;
    },
    started: (name) => started.push(name),
    stopped: (name) => stopped.push(name),
  };
  const registry = buildPluginRegistry();
  const daemon: Promise<Daemon> = runDaemon({
    loaded: loadConfig(file, { registry }),
    registry,
    catchUp,
    observer,
  });
  return { daemon, started, stopped, injected };
}

/** What this process holds open that a daemon could leave behind: timers, listeners, sockets, file watchers. */
function heldResources(): string[] {
  const kinds = new Set(['Timeout', 'TCPServerWrap', 'TCPSocketWrap', 'StatWatcher', 'FSEventWrap']);
  return process
    .getActiveResourcesInfo()
    .filter((kind) => kinds.has(kind))
    .sort();
}

/** What is held now beyond `baseline` (a timer of the test runner may have ended meanwhile: fewer is fine). */
function beyond(baseline: readonly string[]): string[] {
  const left = [...baseline];
  return heldResources().filter((kind) => {
    const index = left.indexOf(kind);
    if (index === -1) return true;
    left.splice(index, 1);
    return false;
  });
}

/** Resources the daemon left behind, once closed sockets had a few turns of the event loop to go. */
async function leftBehind(baseline: readonly string[]): Promise<string[]> {
  for (let attempt = 0; attempt < 50 && beyond(baseline).length > 0; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return beyond(baseline);
}

/** A new daemon starts on the same ops port, webhook port and state file, answers, and stops. */
async function expectStartsAgain(file: string): Promise<void> {
  const again = await start(file);
  const daemon = await again.daemon;
  try {
    expect(daemon.opsUrl).toBe(`http://127.0.0.1:${opsPort}`);
    expect((await fetch(`${daemon.opsUrl}/healthz`)).status).toBe(200);
    expect(daemon.webhookUrl).toBe(`http://127.0.0.1:${webhookPort}/webhooks`);
    const body = eventBody(`evt_again_${(eventSeq += 1)}`);
    const webhook = await fetch(daemon.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'service-signature': signatureHeader([SECRET], Math.floor(Date.now() / 1000), Buffer.from(body)),
      },
      body,
    });
    expect(webhook.status).toBe(200); // signed with this daemon's secret: stored by its receiver
  } finally {
    await daemon.stop(5_000);
  }
  expect(again.stopped).toEqual(STOP_ORDER);
}

describe('a failure at each start step', () => {
  it('stops everything in reverse on a normal stop', async () => {
    const file = await writeConfig('normal');
    const baseline = heldResources();
    const run = await start(file);
    const daemon = await run.daemon;
    expect(run.started).toEqual(SERVICES);
    await daemon.stop(5_000);
    expect(run.stopped).toEqual(STOP_ORDER);
    expect(await leftBehind(baseline)).toEqual([]);
  }, 60_000);

  it.each(SERVICES.map((name, index) => [index + 1, name] as const))(
    'step %i (%s): the services before it are stopped in reverse and the start error is reported',
    async (step, failing) => {
      const file = await writeConfig(`fail-${step}`);
      const baseline = heldResources();
      const run = await start(file, failing);
      await expect(run.daemon).rejects.toBe(run.injected);
      const before = startedBefore(failing);
      expect(run.started).toEqual(before);
      expect(run.stopped).toEqual(stopOrderOf(before));
      expect(await leftBehind(baseline)).toEqual([]);
      await expectStartsAgain(file);
    },
    60_000,
  );
});

describe('real causes of a failed start', () => {
  const beforeService = (name: string) => stopOrderOf(startedBefore(name));

  it('ops port taken: port_in_use naming server.port; everything before the ops server stopped', async () => {
    const file = await writeConfig('ops-port');
    const blocker = await occupy(opsPort);
    const baseline = heldResources();
    const run = await start(file);
    try {
      const error = await run.daemon.then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(DaemonStartError);
      expect(error).toMatchObject({ code: 'port_in_use', configKey: 'server.port' });
      expect(run.stopped).toEqual(beforeService('ops server'));
      expect(await leftBehind(baseline)).toEqual([]);
    } finally {
      await release(blocker);
    }
    await expectStartsAgain(file);
  }, 60_000);

  it('webhook port taken: port_in_use naming server.webhooks.port; everything before webhook intake stopped', async () => {
    const file = await writeConfig('webhook-port');
    const blocker = await occupy(webhookPort);
    const baseline = heldResources();
    const run = await start(file);
    try {
      await expect(run.daemon).rejects.toMatchObject({
        code: 'port_in_use',
        configKey: 'server.webhooks.port',
      });
      expect(run.stopped).toEqual(beforeService('webhook intake'));
      expect(await leftBehind(baseline)).toEqual([]);
    } finally {
      await release(blocker);
    }
    await expectStartsAgain(file);
  }, 60_000);

  it('unusable certificate file: the error names server.tls.cert_file; everything before the ops server stopped', async () => {
    const certFile = join(dir, 'missing-cert.pem');
    const file = await writeConfig('bad-cert', {
      serverLines: ['  tls:', `    cert_file: ${certFile}`, `    key_file: ${join(dir, 'missing-key.pem')}`],
    });
    const baseline = heldResources();
    const run = await start(file);
    await expect(run.daemon).rejects.toThrow(/server\.tls\.cert_file/);
    expect(run.stopped).toEqual(beforeService('ops server'));
    expect(await leftBehind(baseline)).toEqual([]);
    await expectStartsAgain(await writeConfig('bad-cert-fixed'));
  }, 60_000);

  it('broken connector: its error is reported, the parts before it closed and the state file unlocked', async () => {
    const file = await writeConfig('broken-connector', { erpFile: 'no-such-folder/erp.sqlite' });
    const baseline = heldResources();
    const run = await start(file);
    await expect(run.daemon).rejects.toThrow(/directory does not exist|unable to open/i);
    expect(run.started).toEqual(startedBefore('connector erp'));
    expect(run.stopped).toEqual(beforeService('connector erp'));
    expect(await leftBehind(baseline)).toEqual([]);
    await expectStartsAgain(await writeConfig('broken-connector-fixed'));
  }, 60_000);
});

/**
 * A state file where both jobs are due for a catch-up run (their last run started two days ago) and a webhook
 * event that triggers the orders job waits in the inbox.
 */
function seedDueWork(stateFile: string, eventId: string): void {
  const twoDaysAgo = { ...systemClock, now: () => Date.now() - 2 * 24 * 3600_000 };
  const state = openStateStore({ file: stateFile, clock: twoDaysAgo });
  try {
    for (const job of ['orders', 'catalog'])
      state.runs.finish(state.runs.start(job, 'schedule'), 'ok', {}, null);
    state.inbox.insertMany([{ eventId, type: 'order.created', payload: Buffer.from(eventBody(eventId)) }]);
  } finally {
    state.close();
  }
}

/** Runs recorded per job, and the inbox events still waiting, read from the state file. */
function recordedWork(stateFile: string): { runs: Record<string, number>; pending: string[] } {
  const state = openStateStore({ file: stateFile, clock: systemClock, readOnly: true });
  try {
    const runs = Object.fromEntries(['orders', 'catalog'].map((job) => [job, state.runs.recent(job).length]));
    return { runs, pending: state.inbox.pending().map((event) => event.eventId) };
  } finally {
    state.close();
  }
}

describe('a failed start with catch-up due and webhook events pending', () => {
  const failures: [string, (file: string) => Promise<() => Promise<void>>, string | undefined][] = [
    ['ops port taken', async () => release.bind(undefined, await occupy(opsPort)), undefined],
    ['webhook port taken', async () => release.bind(undefined, await occupy(webhookPort)), undefined],
    ['embedded registration failed', async () => async () => undefined, 'embedded webhook registration'],
  ];

  it.each(failures)(
    '%s: no job ran; the next start catches up',
    async (label, block, failAt) => {
      const stateName = `state/catch-up-${label.replaceAll(' ', '-')}.db`;
      const file = await writeConfig(`catch-up-${label.replaceAll(' ', '-')}`, { statePath: stateName });
      const stateFile = join(dir, stateName);
      const eventId = `evt_pending_${(eventSeq += 1)}`;
      seedDueWork(stateFile, eventId);
      const unblock = await block(file);
      let started: readonly string[] = [];
      try {
        const run = await start(file, failAt, true);
        await expect(run.daemon).rejects.toThrow();
        started = run.started;
      } finally {
        await unblock();
      }
      expect(recordedWork(stateFile)).toEqual({ runs: { orders: 1, catalog: 1 }, pending: [eventId] });
      expect(started).not.toContain('scheduler');
      expect(started).not.toContain('webhook dispatch');

      // The seeded work was due: a start that succeeds runs the catch-up and dispatches the event.
      const good = await start(file, undefined, true);
      const daemon = await good.daemon;
      try {
        for (let attempt = 0; attempt < 200; attempt += 1) {
          const work = recordedWork(stateFile);
          if (work.runs.orders! > 1 && work.runs.catalog! > 1 && work.pending.length === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      } finally {
        await daemon.stop(5_000);
      }
      const after = recordedWork(stateFile);
      expect(after.pending).toEqual([]);
      expect(after.runs.orders).toBeGreaterThan(1);
      expect(after.runs.catalog).toBeGreaterThan(1);
    },
    60_000,
  );
});
