import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { startSandbox } from '../../src/sandbox/index.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

describe('what a running daemon serves and refuses: ops endpoints, a second daemon, unsigned webhooks', () => {
  let dir: string;
  let sandbox: Sandbox;
  const daemons: Daemon[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-daemon-'));
    sandbox = await startSandbox({});
  });

  afterEach(async () => {
    for (const daemon of daemons.splice(0)) await daemon.stop(5_000);
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function writeConfig(extra = ''): Promise<string> {
    const file = join(dir, 'supply-sync.yaml');
    await writeFile(
      file,
      [
        'api:',
        `  base_url: ${sandbox.baseUrl}`,
        `  api_key: ${sandbox.keys.supplier}`,
        'state:',
        '  path: state/daemon.db',
        'server:',
        '  port: 0',
        'log:',
        '  level: silent',
        extra,
      ].join('\n'),
    );
    return file;
  }

  async function start(file: string): Promise<Daemon> {
    const registry = buildPluginRegistry();
    const daemon = await runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
    });
    daemons.push(daemon);
    return daemon;
  }

  it('serves health, readiness, metrics and a status view without any secret', async () => {
    const daemon = await start(await writeConfig());

    expect((await fetch(`${daemon.opsUrl}/healthz`)).status).toBe(200);
    const ready = await fetch(`${daemon.opsUrl}/readyz`);
    const readyBody = await ready.text();
    expect(ready.status, readyBody).toBe(200);

    const metrics = await (await fetch(`${daemon.opsUrl}/metrics`)).text();
    expect(metrics).toMatch(/supply_sync_webhooks_received_total|supply_sync_api_calls_total/);
    daemon.env.state.deadLetters.add('orders', 'ord_x', { id: 'ord_x' }, 'no ERP customer');
    const after = await (await fetch(`${daemon.opsUrl}/metrics`)).text();
    expect(after).toMatch(/^supply_sync_dead_letters_open\{flow="orders"\} 1$/m);

    const status = await fetch(`${daemon.opsUrl}/status`, { headers: { accept: 'application/json' } });
    const text = await status.text();
    expect(status.status).toBe(200);
    expect(text).not.toContain(sandbox.keys.supplier);
    const html = await (await fetch(`${daemon.opsUrl}/status`)).text();
    expect(html).toContain('<html');
    expect(html).not.toContain(sandbox.keys.supplier);
  });

  it('refuses a second daemon on the same state file and names the holder', async () => {
    const file = await writeConfig();
    await start(file);
    await expect(start(file)).rejects.toThrow(new RegExp(`pid ${process.pid}`));
  });

  it('rejects an unsigned webhook with 400 and stores nothing', async () => {
    const daemon = await start(await writeConfig());
    const response = await fetch(daemon.webhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: 'evt_1', type: 'ping', occurred_at: new Date().toISOString(), data: {} }),
    });
    expect(response.status).toBe(400);
    expect(daemon.env.state.inbox.get('evt_1')).toBeNull();
  });
});
