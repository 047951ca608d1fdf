/**
 * A daemon's stop ends even when a background task does not: a connector check that never answers is given up when
 * the stop aborts it, and a loop task that ignores its signal is left running once the stop's timeout has passed,
 * with a log line naming it. The hang is injected through a connector type registered for the test; the daemon
 * around it is the real one (sandbox API, SQLite state, ops server).
 */
import { Writable } from 'node:stream';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, builtinPlugins, runDaemon } from '../../src/daemon/index.js';
import { every, stopLoop } from '../../src/daemon/services/every.js';
import { createLogger } from '../../src/log/index.js';
import { defineConnector } from '../../src/plugin/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import type { CheckResult } from '../../src/connector-contract/index.js';

/** Long enough that only a hang reaches it: the stop itself is given 200 ms. */
const HANG_GUARD_MS = 15_000;

function withinGuard<T>(work: Promise<T>): Promise<T | 'hung'> {
  return Promise.race([
    work,
    new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), HANG_GUARD_MS).unref()),
  ]);
}

/** Answers its first check, then never again: a network path that went silent. */
function silentAfterFirstCheck() {
  let calls = 0;
  let hungCheck: (() => void) | undefined;
  const hung = new Promise<void>((resolve) => (hungCheck = resolve));
  const definition = defineConnector({
    type: 'silent-after-first-check',
    description: 'test connector whose checks stop answering',
    configSchema: z.strictObject({}),
    capabilities: [],
    create: async () => ({
      type: 'silent-after-first-check',
      capabilities: {},
      check: (): Promise<CheckResult[]> => {
        calls += 1;
        if (calls === 1) return Promise.resolve([{ name: 'reachable', status: 'ok', detail: 'ok' }]);
        hungCheck?.();
        return new Promise<CheckResult[]>(() => undefined);
      },
      close: async () => undefined,
    }),
  });
  return { definition, hung };
}

describe('stop bounds', () => {
  let dir: string;
  let sandbox: RunningSandbox;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-stop-bounds-'));
    sandbox = await startSandbox({});
  }, 60_000);

  afterAll(async () => {
    await sandbox?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a connector check that never answers does not hang the stop', async () => {
    const connector = silentAfterFirstCheck();
    const file = join(dir, 'silent.yaml');
    const config = {
      api: { base_url: sandbox.baseUrl, api_key: sandbox.keys.supplier },
      state: { path: 'state/daemon.db' },
      server: { port: 0 },
      log: { level: 'silent' },
      health: { connector_check_interval: '50ms' },
      connectors: { erp: { type: 'silent-after-first-check' } },
    };
    await writeFile(file, JSON.stringify(config)); // JSON is YAML
    const registry = buildPluginRegistry([...builtinPlugins(), connector.definition]);
    const daemon = await runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
      catchUp: false,
    });
    expect(await withinGuard(connector.hung)).toBeUndefined(); // a check is now hanging
    expect(await withinGuard(daemon.stop(200))).toEqual({ unfinished: [] });
  }, 60_000);

  it('a loop task that ignores its signal is left running after the timeout, and logged by name', async () => {
    const lines: { msg: string; task?: string; timeoutMs?: number }[] = [];
    const logger = createLogger({
      level: 'warn',
      destination: new Writable({
        write(chunk: Buffer, _encoding, done) {
          for (const line of chunk.toString('utf8').split('\n'))
            if (line !== '') lines.push(JSON.parse(line));
          done();
        },
      }),
    });
    let started: (() => void) | undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const loop = every(
      systemClock,
      1,
      () => {
        started?.();
        return new Promise<void>(() => undefined); // ignores the signal
      },
      () => undefined,
    );
    await running;
    expect(await withinGuard(stopLoop(loop, { timeoutMs: 100 }, logger, 'stuck task'))).toBeUndefined();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([
      expect.objectContaining({
        task: 'stuck task',
        timeoutMs: 100,
        msg: expect.stringContaining('left running'),
      }),
    ]);
  });

  it('a loop whose task ends at the signal stops without a log line', async () => {
    let started: (() => void) | undefined;
    const running = new Promise<void>((resolve) => (started = resolve));
    const loop = every(
      systemClock,
      1,
      (signal) => {
        started?.();
        return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve()));
      },
      () => undefined,
    );
    await running;
    expect(await withinGuard(loop.stop(HANG_GUARD_MS * 2))).toBe(true);
  });
});
