/**
 * Protected operations endpoints: /metrics and /status (HTML and JSON) need the bearer token or the basic
 * credentials (given as ${ENV} and *_file), /healthz and /readyz stay open; server.webhooks.allow_cidrs refuses
 * senders outside the ranges and never replaces the signature check.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { eventBody } from '../webhooks/support.js';
import { writeDaemonConfig } from './helpers/daemon-config.js';

const TOKEN = 'ops-token-7f3a9c1e5b2d4a6f';
const PASSWORD = 'ops-password-b1c2d3e4f5';
const SECRET = 'whsec_ops_auth_test_secret_0123456789';

let sandbox: RunningSandbox;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({});
  dir = mkdtempSync(join(tmpdir(), 'supply-sync-ops-auth-'));
  writeFileSync(join(dir, 'ops-password'), `${PASSWORD}\n`);
});

afterAll(async () => {
  await sandbox.close();
});

async function start(name: string, serverLines: string[]): Promise<Daemon> {
  const file = writeDaemonConfig({
    dir,
    name,
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.keys.supplier,
    webhookSecret: SECRET,
    serverLines,
  });
  const registry = buildPluginRegistry();
  return runDaemon({
    loaded: loadConfig(file, { registry, env: { OPS_TOKEN: TOKEN } }),
    registry,
  });
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('server.auth', () => {
  it('guards /metrics and /status with a bearer token or basic credentials; probes stay open', async () => {
    const daemon = await start('auth', [
      '  auth:',
      '    token: ${OPS_TOKEN}',
      '    username: ops',
      '    password_file: ops-password',
    ]);
    try {
      for (const path of ['/metrics', '/status']) {
        for (const accept of ['text/html', 'application/json']) {
          const refused = await fetch(`${daemon.opsUrl}${path}`, { headers: { accept } });
          expect(refused.status, `${path} ${accept}`).toBe(401);
          const body = await refused.text();
          if (path === '/status' && accept === 'text/html') {
            // A browser gets the sign-in form, and no Basic challenge that would make it prompt and keep a login.
            expect(refused.headers.get('www-authenticate')).toBe('Bearer realm="supply-sync"');
            expect(body).toContain('id="sign-in"');
            expect(body).not.toContain('<h2>Jobs</h2>');
            continue;
          }
          expect(refused.headers.get('www-authenticate')).toMatch(
            /Bearer realm="supply-sync".*Basic realm="supply-sync"/,
          );
          expect(body).toBe('{"error":"unauthorized"}');
        }
        const wrong = await fetch(`${daemon.opsUrl}${path}`, {
          headers: { authorization: `Bearer ${TOKEN}x` },
        });
        expect(wrong.status).toBe(401);
        const wrongPassword = await fetch(`${daemon.opsUrl}${path}`, {
          headers: { authorization: basic('ops', 'nope') },
        });
        expect(wrongPassword.status).toBe(401);
        const bearer = await fetch(`${daemon.opsUrl}${path}`, {
          headers: { authorization: `Bearer ${TOKEN}` },
        });
        expect(bearer.status).toBe(200);
        const text = await bearer.text();
        expect(text).not.toContain(TOKEN);
        expect(text).not.toContain(PASSWORD);
        const viaBasic = await fetch(`${daemon.opsUrl}${path}`, {
          headers: { authorization: basic('ops', PASSWORD), accept: 'application/json' },
        });
        expect(viaBasic.status).toBe(200);
      }
      expect((await fetch(`${daemon.opsUrl}/healthz`)).status).toBe(200);
      const ready = await fetch(`${daemon.opsUrl}/readyz`);
      expect([200, 503]).toContain(ready.status);
      expect(await ready.text()).not.toContain('unauthorized');
    } finally {
      await daemon.stop(5_000);
    }
  });
});

describe('server.webhooks.allow_cidrs', () => {
  const post = (url: string, id: string, signed: boolean) => {
    const body = eventBody(id);
    const signature = signatureHeader([SECRET], Math.floor(Date.now() / 1000), Buffer.from(body));
    return fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(signed ? { 'service-signature': signature } : {}) },
      body,
    });
  };

  it('refuses a signed webhook from outside the ranges with 403 and stores nothing', async () => {
    const daemon = await start('outside', [
      '  webhooks:',
      '    allow_cidrs: [203.0.113.0/24, 2001:db8::/32]',
    ]);
    try {
      const response = await post(daemon.webhookUrl, 'evt_outside', true);
      expect(response.status).toBe(403);
      expect(daemon.env.state.inbox.get('evt_outside')).toBeNull();
    } finally {
      await daemon.stop(5_000);
    }
  });

  it('accepts a signed webhook from inside a range, and still refuses an unsigned one', async () => {
    const daemon = await start('inside', ['  webhooks:', '    allow_cidrs: [10.0.0.0/8, 127.0.0.0/8]']);
    try {
      expect((await post(daemon.webhookUrl, 'evt_inside', true)).status).toBe(200);
      expect(daemon.env.state.inbox.get('evt_inside')).not.toBeNull();
      expect((await post(daemon.webhookUrl, 'evt_unsigned', false)).status).toBe(400);
      expect(daemon.env.state.inbox.get('evt_unsigned')).toBeNull();
    } finally {
      await daemon.stop(5_000);
    }
  });

  it('names the key when a range does not parse', () => {
    const file = join(dir, 'bad-cidr.yaml');
    writeFileSync(
      file,
      ['api:', '  sandbox: embedded', 'server:', '  webhooks:', '    allow_cidrs: [10.0.0.0/33]', ''].join(
        '\n',
      ),
    );
    const registry = buildPluginRegistry();
    expect(() => loadConfig(file, { registry })).toThrow(
      /bad-cidr\.yaml:5:\d+ server\.webhooks\.allow_cidrs\[0\]: expected an address range like 203\.0\.113\.0\/24/,
    );
  });
});
