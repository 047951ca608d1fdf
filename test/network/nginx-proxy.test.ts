/**
 * deploy/nginx/supply-sync.conf, run by Debian's nginx (not as a daemon, its own prefix in a temp folder, loopback
 * ports) with a certificate from a CA made here, in front of a running daemon: the webhook probes pass through it
 * with the body unchanged, and nothing sent through it (nor through a bare proxy_pass) grants control without
 * credentials. Skips where nginx is not installed, except under SUPPLY_SYNC_REQUIRE_SERVICES=1.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { requireServices } from '../connectors/services.js';
import { makeTestCa, type TestCa } from './helpers/pki.js';
import { freePort } from '../support/free-port.js';

const RECIPE = join(import.meta.dirname, '../../deploy/nginx/supply-sync.conf');
const SECRET = 'whsec_nginx_test_secret_0123456789abcdef';
const NGINX = spawnSync('sh', ['-c', 'command -v nginx || ls /usr/sbin/nginx'], { encoding: 'utf8' })
  .stdout.trim()
  .split('\n')[0];
const available = NGINX !== undefined && NGINX !== '';
const reason = 'nginx is not installed (Debian package nginx-light or nginx)';
requireServices({ service: 'nginx', available, reason });

let sandbox: RunningSandbox;
let daemon: Daemon;
let ca: TestCa;
let nginx: ChildProcess | undefined;
let origin: string;
let agent: Agent;
let prefix: string;
let naivePort: number;

beforeAll(async () => {
  if (!available) return;
  sandbox = await startSandbox({});
  ca = makeTestCa('Supply Test Edge CA');
  const edge = ca.issue('edge');
  prefix = mkdtempSync(join(tmpdir(), 'supply-sync-nginx-'));
  const config = join(prefix, 'supply-sync.yaml');
  writeFileSync(
    config,
    [
      'api:',
      `  base_url: ${sandbox.baseUrl}`,
      `  api_key: ${sandbox.keys.supplier}`,
      'state:',
      '  path: nginx.db',
      'server:',
      '  port: 0',
      `  webhook_secrets: ['${SECRET}']`,
      '  max_body_bytes: 4096',
      'log:',
      '  level: silent',
      'connectors:',
      '  erp: { type: demo-erp, data_dir: erp, journal: false }',
      'jobs:',
      "  orders: { flow: orders, connector: erp, schedule: '0 3 1 1 *' }",
      '',
    ].join('\n'),
  );
  const registry = buildPluginRegistry();
  daemon = await runDaemon({ loaded: loadConfig(config, { registry }), registry, catchUp: false });
  const daemonPort = new URL(daemon.opsUrl).port;
  const listenPort = await freePort();
  // The recipe as shipped, with only the addresses and certificate paths of this test put in.
  const site = readFileSync(RECIPE, 'utf8')
    .replace('listen 443 ssl;', `listen 127.0.0.1:${listenPort} ssl;`)
    .replace('/etc/ssl/supply-sync/fullchain.pem', edge.certFile)
    .replace('/etc/ssl/supply-sync/privkey.pem', edge.keyFile)
    .replaceAll('http://127.0.0.1:8080', `http://127.0.0.1:${daemonPort}`);
  expect(site).not.toContain(':8080');
  naivePort = await freePort();
  // What the recipe replaces: everything passed on, as a bare proxy_pass does.
  const naive = `server {\n  listen 127.0.0.1:${naivePort};\n  location / {\n    proxy_pass http://127.0.0.1:${daemonPort};\n  }\n}\n`;
  writeFileSync(join(prefix, 'site.conf'), `${site}\n${naive}`);
  for (const temp of ['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(join(prefix, temp));
  writeFileSync(
    join(prefix, 'nginx.conf'),
    [
      'daemon off;',
      'master_process off;',
      'worker_processes 1;',
      `pid ${join(prefix, 'nginx.pid')};`,
      `error_log ${join(prefix, 'error.log')} warn;`,
      'events { worker_connections 64; }',
      'http {',
      '  access_log off;',
      ...['body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(
        (temp) => `  ${temp === 'body' ? 'client_body' : temp}_temp_path ${join(prefix, temp)};`,
      ),
      `  include ${join(prefix, 'site.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const checked = spawnSync(
    NGINX ?? 'nginx',
    ['-t', '-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')],
    {
      encoding: 'utf8',
    },
  );
  expect(checked.status, checked.stderr).toBe(0);
  nginx = spawn(
    NGINX ?? 'nginx',
    ['-p', prefix, '-c', join(prefix, 'nginx.conf'), '-e', join(prefix, 'error.log')],
    {
      stdio: 'ignore',
    },
  );
  origin = `https://127.0.0.1:${listenPort}`;
  agent = new Agent({ connect: { ca: ca.cert } });
  const deadline = Date.now() + 10_000;
  for (;;) {
    try {
      const response = await request(`${origin}/healthz`, { dispatcher: agent });
      await response.body.dump();
      if (response.statusCode === 200) break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}, 60_000);

afterAll(async () => {
  if (!available) return;
  nginx?.kill('SIGTERM');
  await agent?.close();
  await daemon?.stop(5_000);
  await sandbox?.close();
});

function post(body: string | Buffer, headers: Record<string, string>) {
  return request(`${origin}/webhooks`, { dispatcher: agent, method: 'POST', headers, body });
}

function signed(body: string | Buffer, secret = SECRET): Record<string, string> {
  const raw = Buffer.isBuffer(body) ? body : Buffer.from(body);
  return {
    'content-type': 'application/json',
    'service-signature': signatureHeader([secret], Math.floor(Date.now() / 1000), raw),
  };
}

describe.skipIf(!available)('webhooks through nginx (deploy/nginx/supply-sync.conf)', () => {
  it('delivers a signed event with its raw bytes unchanged, and answers a duplicate as one', async () => {
    // Odd spacing, key order and non-ASCII text: any re-encoding on the way would break the signature.
    const body = Buffer.from(
      '{ "id":"evt_nginx_1",  "type":"order.created","api_version":"2",\n "occurred_at":"2026-11-22T08:00:00+02:00", "account_id":"acc_1", "data":{"object":"order","id":"ord_1","note":"שלום – café"} }',
    );
    const first = await post(body, signed(body));
    expect(first.statusCode).toBe(200);
    expect(await first.body.json()).toEqual({ received: true, duplicate: false });
    expect(Buffer.from(daemon.env.state.inbox.get('evt_nginx_1')?.payload ?? []).equals(body)).toBe(true);
    const again = await post(body, signed(body));
    expect(await again.body.json()).toEqual({ received: true, duplicate: true });
  });

  it('passes the refusals through: unsigned and tampered give 400, an oversized body 413', async () => {
    const body =
      '{"id":"evt_nginx_2","type":"order.created","api_version":"2","occurred_at":"2026-11-22T08:00:00+02:00","account_id":"acc_1","data":{}}';
    const unsigned = await post(body, { 'content-type': 'application/json' });
    expect(unsigned.statusCode).toBe(400);
    await unsigned.body.dump();
    const tampered = await post(body.replace('acc_1', 'acc_2'), signed(body));
    expect(tampered.statusCode).toBe(400);
    await tampered.body.dump();
    const wrongSecret = await post(body, signed(body, 'whsec_not_the_right_one_0123456789'));
    expect(wrongSecret.statusCode).toBe(400);
    await wrongSecret.body.dump();
    expect(daemon.env.state.inbox.get('evt_nginx_2')).toBeNull();
    const large = JSON.stringify({ id: 'evt_nginx_big', pad: 'x'.repeat(8192) });
    const oversized = await post(large, signed(large));
    expect(oversized.statusCode).toBe(413);
    await oversized.body.dump();
  });

  it('keeps /metrics and /status off the public side', async () => {
    for (const path of ['/metrics', '/status']) {
      const response = await request(`${origin}${path}`, { dispatcher: agent });
      expect(response.statusCode).toBe(404);
      await response.body.dump();
    }
  });
});

describe.skipIf(!available)('nothing through nginx grants control without credentials', () => {
  const document = JSON.parse(
    readFileSync(join(import.meta.dirname, '../../docs/control-api.json'), 'utf8'),
  ) as { paths: Record<string, Record<string, unknown>> };
  const routes = Object.entries(document.paths).flatMap(([template, methods]) =>
    Object.keys(methods).map((method) => ({
      method: method.toUpperCase(),
      path: template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'job' ? 'orders' : '1')),
    })),
  );
  const localToken = () => readFileSync(join(prefix, 'control-token'), 'utf8').trim();
  const forged = [
    {},
    { host: '127.0.0.1' },
    { 'x-forwarded-for': '127.0.0.1', 'x-real-ip': '127.0.0.1' },
  ] as Record<string, string>[];

  it('answers every control route 404 through the recipe, and 401 (or 403 for the local token) through a bare proxy_pass', async () => {
    for (const { method, path } of routes) {
      for (const headers of forged) {
        const json = { 'content-type': 'application/json', ...headers };
        const body = method === 'POST' ? '{}' : null;
        const recipe = await request(`${origin}${path}`, {
          dispatcher: agent,
          method: method as 'GET',
          headers: json,
          body,
        });
        expect(recipe.statusCode, `${method} ${path} through the recipe`).toBe(404);
        await recipe.body.dump();
        const bare = await request(`http://127.0.0.1:${naivePort}${path}`, {
          method: method as 'GET',
          headers: json,
          body,
        });
        expect(bare.statusCode, `${method} ${path} through a bare proxy_pass`).toBe(401);
        await bare.body.dump();
      }
      // Even the real local token: the recipe passes no credential on, and a forwarded request is never local.
      const withToken = {
        'content-type': 'application/json',
        authorization: `Bearer ${localToken()}`,
        'x-forwarded-for': '198.51.100.1',
      };
      const bare = await request(`http://127.0.0.1:${naivePort}${path}`, {
        method: method as 'GET',
        headers: withToken,
        body: method === 'POST' ? '{}' : null,
      });
      expect(bare.statusCode, `${method} ${path} with the local token through a proxy`).toBe(403);
      await bare.body.dump();
    }
    expect(daemon.env.state.commands.unfinished()).toEqual([]);
    expect(daemon.env.state.pausedJobs.get('orders')).toBeNull();
  });

  it('publishes /readyz as a bare state: no names, reasons or texts, even for a caller that has the local token', async () => {
    daemon.env.state.pausedJobs.pause('orders', 'cli:ann@erp-host', 'secret month-end reason');
    try {
      const bare = await request(`${origin}/readyz`, { dispatcher: agent });
      const text = await bare.body.text();
      expect(Object.keys(JSON.parse(text) as object)).toEqual(['status']);
      const withToken = await request(`${origin}/readyz`, {
        dispatcher: agent,
        headers: { authorization: `Bearer ${localToken()}` },
      });
      const tokenText = await withToken.body.text();
      expect(Object.keys(JSON.parse(tokenText) as object)).toEqual(['status']);
      for (const shown of [text, tokenText]) {
        expect(shown).not.toContain('ann');
        expect(shown).not.toContain('month-end');
      }
    } finally {
      daemon.env.state.pausedJobs.resume('orders');
    }
  });
});

if (!available) {
  describe('webhooks through nginx', () => {
    it.skip(`skipped: ${reason}`, () => undefined);
  });
}
