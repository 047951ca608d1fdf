/**
 * `server.host: 0.0.0.0`, what docs/deploy.md tells container users to set, with the embedded sandbox: the daemon
 * registers a webhook URL the sandbox can call (loopback), never the wildcard, and the signed ping it asks for
 * arrives. A host the sandbox refuses stops the start with the value and the config key to change. Started again on
 * another port, the daemon moves its endpoint instead of adding one beside it (the sandbox allows ten, gap G23).
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

  it('moves its own endpoint when started again on another port, instead of adding one beside it', async () => {
    const file = await demoConfig('127.0.0.1');
    const first = await start(file);
    let daemon = first;
    // Port 0: the system picks the port, which may (rarely) be the same again.
    for (let starts = 1; daemon.webhookUrl === first.webhookUrl && starts <= 5; starts += 1) {
      await daemons.splice(0)[0]?.stop(5_000);
      daemon = await start(file);
    }
    expect(daemon.webhookUrl).not.toBe(first.webhookUrl);
    for (const api of daemon.env.apis.values()) {
      const endpoints = (await api.webhooks.list()).items;
      expect(endpoints.map((endpoint) => endpoint.url)).toEqual([daemon.webhookUrl]);
      // The moved endpoint keeps the secret the daemon stored: the signed ping is accepted.
      const ping = await api.webhooks.test(endpoints[0]?.id ?? 'missing');
      expect(ping.response_status).toBe(200);
    }
  });

  it('names the sandbox file to delete when the sandbox holds as many endpoints as it allows', async () => {
    const file = await demoConfig('127.0.0.1');
    const daemon = await start(file);
    // Endpoints that are not the daemon's own fill the account; the daemon's own is deleted, so none is movable.
    for (const api of daemon.env.apis.values()) {
      const own = (await api.webhooks.list()).items;
      for (let n = own.length; n < 10; n += 1) {
        await api.webhooks.create({
          url: `https://hooks.example.com/${n}`,
          events: ['ping'],
          description: `other ${n}`,
        });
      }
      for (const endpoint of own) await api.webhooks.delete(endpoint.id);
      await api.webhooks.create({
        url: 'https://hooks.example.com/last',
        events: ['ping'],
        description: 'other',
      });
    }
    await daemons.splice(0)[0]?.stop(5_000);
    const started = start(file);
    await expect(started).rejects.toThrow(/holds as many webhook endpoints as it allows an account/);
    await expect(started).rejects.toThrow(/stop the daemon and delete that file/);
    await expect(started).rejects.toThrow(new RegExp(`${join(dir, 'state')}/sandbox\\.db`));
  });
});
