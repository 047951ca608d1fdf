/**
 * `server.host: 0.0.0.0`, what docs/deploy.md tells container users to set, with the embedded sandbox: the daemon
 * registers a webhook URL the sandbox can call (loopback), never the wildcard, and the signed ping it asks for
 * arrives. A host the sandbox refuses stops the start with the value and the config key to change.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { writeDemoConfig } from '../support/demo-config.js';

describe('the daemon on a wildcard host with the embedded sandbox', () => {
  let dir: string;
  const daemons: Daemon[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-wildcard-'));
  });

  afterEach(async () => {
    for (const daemon of daemons.splice(0)) await daemon.stop(5_000);
    await rm(dir, { recursive: true, force: true });
  });

  const demoConfig = (host: string): Promise<string> => writeDemoConfig(dir, { server: { host, port: 0 } });

  async function start(file: string): Promise<Daemon> {
    const registry = buildPluginRegistry();
    const daemon = await runDaemon({ loaded: loadConfig(file, { registry }), registry });
    daemons.push(daemon);
    return daemon;
  }

  it('registers a loopback webhook URL on 0.0.0.0 and the signed ping arrives through it', async () => {
    const daemon = await start(await demoConfig('0.0.0.0'));
    const port = new URL(daemon.opsUrl).port;
    expect(daemon.opsUrl).toBe(`http://127.0.0.1:${port}`);
    expect(daemon.webhookUrl).toBe(`http://127.0.0.1:${port}/webhooks`);
    expect((await fetch(`${daemon.opsUrl}/healthz`)).status).toBe(200);

    const sides = [...daemon.env.apis.values()];
    expect(sides.length).toBeGreaterThan(0);
    for (const api of sides) {
      const endpoints = (await api.webhooks.list()).items;
      expect(endpoints.map((endpoint) => endpoint.url)).toEqual([daemon.webhookUrl]);
      const ping = await api.webhooks.test(endpoints[0]?.id ?? 'missing');
      expect(ping.response_status).toBe(200);
    }
  });

  it('refuses a host the sandbox cannot call over http, naming the URL, the field and the key to set', async () => {
    // 127.0.0.2 is on loopback, so the daemon can listen there, but only 127.0.0.1, ::1 and localhost pass the
    // sandbox's plain-http rule (https only in the contract, part 4.16).
    const file = await demoConfig('127.0.0.2');
    const started = start(file);
    await expect(started).rejects.toThrow(/refused the webhook URL http:\/\/127\.0\.0\.2:\d+\/webhooks/);
    await expect(started).rejects.toThrow(/field url: url must start with https:\/\//);
    await expect(started).rejects.toThrow(/set server\.host to one of those, or configure server\.tls/);
  });
});
