/**
 * A stop asked for while the daemon starts, and a stop that fails. SIGTERM to a real `supply-sync run` whose start
 * waits on a slow API (the sandbox delays every answer; a pass-through proxy shows when the first request is out):
 * the process stops what has started and exits 0 without ever serving, leaving the state file unlocked. In-process,
 * the same abort at a later step, and a service whose stop fails: the rest still stop and the stop rejects naming
 * it (the CLI turns that rejection into exit code 1, see test/scheduler/shutdown.test.ts).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import * as z from 'zod';
import type { CheckResult } from '../../src/connector-contract/index.js';
import { defineConnector } from '../../src/plugin/index.js';
import {
  buildPluginRegistry,
  builtinPlugins,
  runDaemon,
  ServicesStopError,
  StartAbortedError,
  type LifecycleObserver,
} from '../../src/daemon/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { killAndWait, spawnCli, type CliChild } from '../crash/harness/child.js';

/** Only a hang reaches this; the stop after an aborted start takes a moment. */
const HANG_GUARD_MS = 30_000;

let dir: string;
let sandbox: RunningSandbox;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'supply-sync-start-abort-'));
  sandbox = await startSandbox({});
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await rm(dir, { recursive: true, force: true });
});

async function writeConfig(name: string, baseUrl: string, logLevel = 'silent'): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  const config = {
    api: { base_url: baseUrl, api_key: sandbox.keys.supplier },
    state: { path: `state/${name}.db` },
    server: { port: 0 },
    log: { level: logLevel },
  };
  await writeFile(file, JSON.stringify(config)); // JSON is YAML
  return file;
}

/** Forwards every request to the sandbox and resolves `firstRequest` with the path of the first one. */
async function watchingProxy(): Promise<{
  url: string;
  firstRequest: Promise<string>;
  close(): Promise<void>;
}> {
  const target = new URL(sandbox.baseUrl);
  let seen: ((path: string) => void) | undefined;
  const firstRequest = new Promise<string>((resolve) => (seen = resolve));
  const server: Server = createServer((incoming, outgoing) => {
    seen?.(incoming.url ?? '');
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: incoming.url,
        method: incoming.method,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on('error', () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  const base = new URL(sandbox.baseUrl);
  base.host = `127.0.0.1:${address.port}`;
  return {
    url: base.toString().replace(/\/$/, ''),
    firstRequest,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function stateIsUnlocked(stateFile: string): boolean {
  const state = openStateStore({ file: stateFile, clock: systemClock });
  state.close();
  return true;
}

describe('SIGTERM while `supply-sync run` starts', () => {
  let child: CliChild | undefined;

  afterAll(async () => {
    await killAndWait(child);
    await sandbox.control.clearFaults();
  });

  it('stops what has started and exits 0 without serving', async () => {
    const proxy = await watchingProxy();
    try {
      await sandbox.control.setFaults({ latency_ms: 60_000, latency_rate: 1 });
      const file = await writeConfig('cli', proxy.url, 'info');
      child = spawnCli(['run', '--config', file]);
      const path = await Promise.race([proxy.firstRequest, child.exited.then(() => 'exited')]);
      expect(path, child.output()).not.toBe('exited'); // the start is now waiting on the API
      child.kill('SIGTERM');
      const exit = await Promise.race([
        child.exited,
        new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), HANG_GUARD_MS).unref()),
      ]);
      expect(exit, child.output()).toMatchObject({ code: 0, signal: null });
      expect(child.output()).toContain('stopped before the start completed');
      expect(child.output()).not.toContain('status at');
      expect(stateIsUnlocked(join(dir, 'state', 'cli.db'))).toBe(true);
    } finally {
      await sandbox.control.clearFaults();
      await proxy.close();
    }
  }, 60_000);
});

/** The environment's parts with a connector "erp" and no job: the API client is the supplier side's. */
const ENVIRONMENT_PARTS = [
  'state store',
  'API endpoint',
  'supplier API client',
  'connector erp',
  'built jobs',
];

/**
 * The reverse of `started`, except that the environment, which counts as started once its parts are, counts as
 * stopped once they are: its parts come first in `started` and just before it in the stop order.
 */
function stopOrderOf(started: readonly string[]): string[] {
  const environment = started.indexOf('environment');
  const parts = started.slice(0, environment);
  return [...started.slice(environment + 1).reverse(), ...parts.reverse(), 'environment'];
}

describe('in-process', () => {
  function recording(extra: LifecycleObserver = {}) {
    const started: string[] = [];
    const stopped: string[] = [];
    const observer: LifecycleObserver = {
      starting: (name) => extra.starting?.(name),
      started: (name) => started.push(name),
      stopped: (name) => {
        extra.stopped?.(name);
        stopped.push(name);
      },
    };
    return { started, stopped, observer };
  }

  it('an abort while the ops server starts stops what started, in reverse, and runs no job', async () => {
    const file = await writeConfig('abort-in-process', sandbox.baseUrl);
    const abort = new AbortController();
    const run = recording({ starting: (name) => (name === 'ops server' ? abort.abort() : undefined) });
    const registry = buildPluginRegistry();
    const daemon = runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
      observer: run.observer,
      signal: abort.signal,
    });
    await expect(daemon).rejects.toBeInstanceOf(StartAbortedError);
    expect(run.started).toContain('ops server'); // it was under way: started, then stopped
    expect(run.started).not.toContain('scheduler');
    expect(run.stopped).toEqual(stopOrderOf(run.started));
    expect(stateIsUnlocked(join(dir, 'state', 'abort-in-process.db'))).toBe(true);
  }, 60_000);

  it('an abort while a connector check hangs at start gives the check up and stops what started', async () => {
    let checking: (() => void) | undefined;
    const checkHangs = new Promise<void>((resolve) => (checking = resolve));
    const silent = defineConnector({
      type: 'silent',
      description: 'test connector whose check never answers',
      configSchema: z.strictObject({}),
      capabilities: [],
      create: async () => ({
        type: 'silent',
        capabilities: {},
        check: () => {
          checking?.();
          return new Promise<CheckResult[]>(() => undefined);
        },
        close: async () => undefined,
      }),
    });
    const file = join(dir, 'hung-check.yaml');
    const config = {
      api: { base_url: sandbox.baseUrl, api_key: sandbox.keys.supplier },
      state: { path: 'state/hung-check.db' },
      server: { port: 0 },
      log: { level: 'silent' },
      connectors: { erp: { type: 'silent' } },
    };
    await writeFile(file, JSON.stringify(config));
    const registry = buildPluginRegistry([...builtinPlugins(), silent]);
    const abort = new AbortController();
    const run = recording();
    const daemon = runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
      observer: run.observer,
      signal: abort.signal,
    });
    await checkHangs;
    abort.abort();
    await expect(daemon).rejects.toBeInstanceOf(StartAbortedError);
    expect(run.started).toEqual([...ENVIRONMENT_PARTS, 'environment', 'webhook inbox', 'pre-flight gate']);
    expect(run.stopped).toEqual([
      'pre-flight gate',
      'webhook inbox',
      ...[...ENVIRONMENT_PARTS].reverse(),
      'environment',
    ]);
    expect(stateIsUnlocked(join(dir, 'state', 'hung-check.db'))).toBe(true);
  }, 60_000);

  it('a service that fails to stop: the others stop and the stop rejects naming it', async () => {
    const file = await writeConfig('failed-stop', sandbox.baseUrl);
    const closeFailure = new Error('ops server did not close');
    const run = recording({
      stopped: (name) => {
        if (name === 'ops server') throw closeFailure;
      },
    });
    const registry = buildPluginRegistry();
    const daemon = await runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
      observer: run.observer,
    });
    const stop = daemon.stop(5_000);
    await expect(stop).rejects.toBeInstanceOf(ServicesStopError);
    await expect(stop).rejects.toMatchObject({ services: ['ops server'] });
    const others = run.started.filter((name) => name !== 'ops server');
    expect([...run.stopped].sort()).toEqual(others.sort());
    expect(run.stopped.indexOf('webhook intake')).toBeGreaterThan(run.stopped.indexOf('jobs'));
    expect(run.stopped.at(-1)).toBe('environment');
    expect(stateIsUnlocked(join(dir, 'state', 'failed-stop.db'))).toBe(true);
  }, 60_000);
});
