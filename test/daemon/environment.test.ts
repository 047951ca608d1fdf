/**
 * The environment's parts are services of one lifecycle: opened in order, closed in reverse; a part that fails to
 * close is logged and the others still close; a part that fails to open closes those opened before it. A state store
 * given by the caller (a dry run's copy) is the caller's: never closed by the environment.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../src/config/index.js';
import type { LifecycleObserver } from '../../src/daemon/index.js';
import { buildEnvironment, UnknownFlowError } from '../../src/daemon/services/environment-service.js';
import { createLogger } from '../../src/log/index.js';
import { defineConnector, PluginRegistry } from '../../src/plugin/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A connector type whose connectors record their close; `failing` names those whose create or close throws. */
function recordingConnector(events: string[], failing: { create?: string; close?: string } = {}) {
  return defineConnector({
    type: 'recording',
    description: 'records when it is closed',
    configSchema: z.strictObject({}),
    capabilities: [],
    create: async (_config, { name }) => {
      if (name === failing.create) throw new Error(`${name} cannot open`);
      return {
        type: 'recording',
        capabilities: {},
        check: async () => [],
        close: async () => {
          events.push(`close ${name}`);
          if (name === failing.close) throw new Error(`${name} cannot close`);
        },
      };
    },
  });
}

async function writeConfig(lines: string[]): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'supply-sync-environment-'));
  const file = join(dir, 'supply-sync.yaml');
  await writeFile(file, ['api:', '  sandbox: embedded', ...lines, ''].join('\n'));
  return file;
}

const TWO_CONNECTORS = ['connectors:', '  first:', '    type: recording', '  second:', '    type: recording'];

function observing(events: string[]): LifecycleObserver {
  return {
    started: (name) => events.push(`started ${name}`),
    stopped: (name) => events.push(`stopped ${name}`),
  };
}

/** A logger whose lines are kept, parsed. */
function keptLogger() {
  const lines: { level: number; msg: string; service?: string; err?: { message?: string } }[] = [];
  const logger = createLogger({
    level: 'warn',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line));
        done();
      },
    }),
  });
  return { logger, lines };
}

describe('the environment', () => {
  it('opens its parts in order and closes them in reverse', async () => {
    const file = await writeConfig(TWO_CONNECTORS);
    const events: string[] = [];
    const registry = new PluginRegistry([recordingConnector(events)]);
    const loaded = loadConfig(file, { registry, env: {} });
    const env = await buildEnvironment({
      loaded,
      registry,
      logger: pino({ level: 'silent' }),
      observer: observing(events),
    });
    expect(events).toEqual([
      'started state store',
      'started API endpoint',
      'started supplier API client',
      'started connector first',
      'started connector second',
      'started built jobs',
    ]);
    events.length = 0;
    await env.close();
    expect(events).toEqual([
      'stopped built jobs',
      'close second',
      'stopped connector second',
      'close first',
      'stopped connector first',
      'stopped supplier API client',
      'stopped API endpoint',
      'stopped state store',
    ]);
  }, 30_000);

  it('logs a part that fails to close, closes the others, and the close resolves', async () => {
    const file = await writeConfig(TWO_CONNECTORS);
    const events: string[] = [];
    const registry = new PluginRegistry([recordingConnector(events, { close: 'second' })]);
    const { logger, lines } = keptLogger();
    const env = await buildEnvironment({
      loaded: loadConfig(file, { registry, env: {} }),
      registry,
      logger,
      observer: observing(events),
    });
    events.length = 0;
    await expect(env.close()).resolves.toBeUndefined();
    expect(events).toEqual([
      'stopped built jobs',
      'close second',
      'close first',
      'stopped connector first',
      'stopped supplier API client',
      'stopped API endpoint',
      'stopped state store',
    ]);
    expect(lines).toEqual([
      expect.objectContaining({
        service: 'connector second',
        err: expect.objectContaining({ message: 'second cannot close' }),
      }),
    ]);
  }, 30_000);

  it('closes what was opened, in reverse, when a part fails to open, and reports that failure', async () => {
    const file = await writeConfig(TWO_CONNECTORS);
    const events: string[] = [];
    const registry = new PluginRegistry([recordingConnector(events, { create: 'second' })]);
    const built = buildEnvironment({
      loaded: loadConfig(file, { registry, env: {} }),
      registry,
      logger: pino({ level: 'silent' }),
      observer: observing(events),
    });
    await expect(built).rejects.toThrow('second cannot open');
    expect(events).toEqual([
      'started state store',
      'started API endpoint',
      'started supplier API client',
      'started connector first',
      'close first',
      'stopped connector first',
      'stopped supplier API client',
      'stopped API endpoint',
      'stopped state store',
    ]);
  }, 30_000);

  it("leaves a state store given by the caller open: it is the caller's", async () => {
    // The embedded sandbox keeps its data beside the state file, in the folder the configured store would make.
    const file = await writeConfig(['state:', '  path: state.db']);
    const events: string[] = [];
    const registry = new PluginRegistry([]);
    const state = openStateStore({ file: join(dir ?? '', 'copy.db'), clock: systemClock, lock: false });
    try {
      const env = await buildEnvironment({
        loaded: loadConfig(file, { registry, env: {} }),
        registry,
        logger: pino({ level: 'silent' }),
        state,
        observer: observing(events),
      });
      expect(env.state).toBe(state);
      await env.close();
      expect(events).not.toContain('started state store');
      state.kv.set('test', 'still-open', 1);
      expect(state.kv.get('test', 'still-open')).toBe(1);
    } finally {
      state.close();
    }
  }, 30_000);

  it('refuses a job whose flow the registry does not know, naming the file, the key and the known flows', async () => {
    const file = await writeConfig(['jobs:', '  push:', '    flow: nowhere']);
    const events: string[] = [];
    const built = buildEnvironment({
      loaded: loadConfig(file, { env: {} }),
      registry: new PluginRegistry([]),
      logger: pino({ level: 'silent' }),
      observer: observing(events),
    });
    await expect(built).rejects.toBeInstanceOf(UnknownFlowError);
    await expect(built).rejects.toThrow(
      `${file}: jobs.push.flow: unknown flow "nowhere" (known flows: none)`,
    );
    expect(events).toEqual([
      'started state store',
      'started API endpoint',
      'stopped API endpoint',
      'stopped state store',
    ]);
  }, 30_000);
});
