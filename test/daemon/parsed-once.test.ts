/**
 * Job options and connector blocks are parsed once, when the config is loaded: the flow's and the connector type's
 * `create` receive what the loader made, and building the daemon's environment parses nothing again (schemas with a
 * transform count their calls). A config loaded without those plugins is refused by name, not built unparsed.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../src/config/index.js';
import { buildEnvironment } from '../../src/daemon/services/environment-service.js';
import { ConfigNotBuildableError } from '../../src/daemon/plugins/parsed-config.js';
import { defineConnector, defineFlow, PluginRegistry } from '../../src/plugin/index.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function countingFlow() {
  const seen = { parses: 0, received: [] as unknown[] };
  const options = z
    .strictObject({
      folder: z.string().meta({ description: 'Where the files go', examples: ['out'] }),
    })
    .transform((value) => {
      seen.parses += 1;
      return { ...value, parse: seen.parses };
    });
  const flow = defineFlow({
    flow: 'counted',
    description: 'counts how often its options are parsed',
    side: 'supplier',
    scopes: [],
    requires: [],
    triggerEvents: [],
    options,
    create(job) {
      seen.received.push(job.options);
      return { name: job.name, run: () => Promise.resolve({ outcome: 'ok', counts: {} }) };
    },
  });
  return { flow, seen };
}

function countingConnector() {
  const seen = { parses: 0, received: [] as unknown[] };
  const configSchema = z
    .strictObject({ folder: z.string().meta({ description: 'Where it reads', examples: ['in'] }) })
    .transform((value) => {
      seen.parses += 1;
      return { ...value, parse: seen.parses };
    });
  const definition = defineConnector({
    type: 'counted-connector',
    description: 'counts how often its block is parsed',
    configSchema,
    capabilities: [],
    create: async (config) => {
      seen.received.push(config);
      return {
        type: 'counted-connector',
        capabilities: {},
        check: async () => [],
        close: async () => undefined,
      };
    },
  });
  return { definition, seen };
}

async function writeConfig(lines: string[]): Promise<string> {
  dir = await mkdtemp(join(tmpdir(), 'supply-sync-parsed-once-'));
  const file = join(dir, 'supply-sync.yaml');
  await writeFile(file, ['api:', '  sandbox: embedded', ...lines, ''].join('\n'));
  return file;
}

describe('connector blocks', () => {
  it('are parsed once at load and handed to the connector type as parsed', async () => {
    const file = await writeConfig([
      'connectors:',
      '  source:',
      '    type: counted-connector',
      '    folder: in',
    ]);
    const { definition, seen } = countingConnector();
    const registry = new PluginRegistry([definition]);
    const loaded = loadConfig(file, { registry, env: {} });
    expect(seen.parses).toBe(1);
    const environment = await buildEnvironment({ loaded, registry, logger: pino({ level: 'silent' }) });
    try {
      expect(seen.parses).toBe(1);
      expect(seen.received).toEqual([{ folder: 'in', parse: 1 }]);
    } finally {
      await environment.close();
    }
  });

  it('loaded without the connector type: building refuses, naming the block', async () => {
    const file = await writeConfig([
      'connectors:',
      '  source:',
      '    type: counted-connector',
      '    folder: in',
    ]);
    const { definition, seen } = countingConnector();
    const loaded = loadConfig(file, { env: {} });
    const built = buildEnvironment({
      loaded,
      registry: new PluginRegistry([definition]),
      logger: pino({ level: 'silent' }),
    });
    await expect(built).rejects.toBeInstanceOf(ConfigNotBuildableError);
    await expect(built).rejects.toThrow(`${file}: connectors.source: not checked against`);
    expect(seen.received).toEqual([]);
  });
});

describe('job options', () => {
  it('loaded without the flow: building refuses, naming the options', async () => {
    const file = await writeConfig(['jobs:', '  push:', '    flow: counted', '    options: { folder: out }']);
    const { flow, seen } = countingFlow();
    const loaded = loadConfig(file, { env: {} });
    const built = buildEnvironment({
      loaded,
      registry: new PluginRegistry([flow]),
      logger: pino({ level: 'silent' }),
    });
    await expect(built).rejects.toBeInstanceOf(ConfigNotBuildableError);
    await expect(built).rejects.toThrow(`${file}: jobs.push.options: not checked against`);
    expect(seen.received).toEqual([]);
  });

  it('are parsed once at load and handed to the flow as the loaded object', async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-options-once-'));
    const file = join(dir, 'supply-sync.yaml');
    await writeFile(
      file,
      [
        'api:',
        '  sandbox: embedded',
        'jobs:',
        '  push:',
        '    flow: counted',
        '    options: { folder: out }',
        '',
      ].join('\n'),
    );
    const { flow, seen } = countingFlow();
    const registry = new PluginRegistry([flow]);

    const loaded = loadConfig(file, { registry, env: {} });
    expect(seen.parses).toBe(1);
    const options = loaded.config.jobs['push']?.options;
    expect(options).toEqual({ folder: 'out', parse: 1 });

    const environment = await buildEnvironment({ loaded, registry, logger: pino({ level: 'silent' }) });
    try {
      expect(environment.jobs.get('push')?.job.name).toBe('push');
      expect(seen.parses).toBe(1);
      expect(seen.received).toHaveLength(1);
      expect(seen.received[0]).toBe(options);
    } finally {
      await environment.close();
    }
  });
});
