/**
 * The whole corporate setup at once: the API behind https with a certificate from a private CA (api.ca_file),
 * reached only through an authenticating forward proxy (api.proxy with its password from ${ENV}), and the
 * daemon's own server on https (server.tls). The daemon's API calls go through the proxy's CONNECT tunnel, a
 * signed webhook arrives over https, and neither the proxy password nor the API key shows on /status or in logs.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon } from '../../src/daemon/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { eventBody } from '../webhooks/support.js';
import { startForwardProxy, type ForwardProxy } from './helpers/forward-proxy.js';
import { makeTestCa, type TestCa } from './helpers/pki.js';
import { startTlsRelay, type TlsRelay } from './helpers/tls-relay.js';

const PROXY_PASSWORD = 'corp-proxy-Secret-4411';
const SECRET = 'whsec_corporate_network_test_0123456789';

let sandbox: RunningSandbox;
let ca: TestCa;
let relay: TlsRelay;
let proxy: ForwardProxy;

beforeAll(async () => {
  sandbox = await startSandbox({});
  ca = makeTestCa('Supply Test Corporate CA');
  const api = ca.issue('api');
  relay = await startTlsRelay(sandbox.port, api.cert, api.key);
  proxy = await startForwardProxy({
    requireAuthorization: `Basic ${Buffer.from(`sync:${PROXY_PASSWORD}`).toString('base64')}`,
  });
});

afterAll(async () => {
  await proxy.close();
  await relay.close();
  await sandbox.close();
});

describe('a daemon behind a proxy, trusting a private CA, serving https', () => {
  it(
    'reaches the API only through the proxy and receives a signed webhook over https',
    { timeout: 60_000 },
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'supply-sync-corporate-'));
      const server = ca.issue('daemon');
      const file = join(dir, 'supply-sync.yaml');
      writeFileSync(
        file,
        [
          'api:',
          `  base_url: ${relay.origin}/v2`,
          `  api_key: ${sandbox.keys.supplier}`,
          `  ca_file: ${ca.certFile}`,
          '  proxy:',
          `    url: ${proxy.url}`,
          '    username: sync',
          '    password: ${PROXY_PASSWORD}',
          'state:',
          '  path: corporate.db',
          'server:',
          '  port: 0',
          `  webhook_secrets: ['${SECRET}']`,
          '  tls:',
          `    cert_file: ${server.certFile}`,
          `    key_file: ${server.keyFile}`,
          '',
        ].join('\n'),
      );
      let logs = '';
      const logger = pino(
        { level: 'debug' },
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            logs += chunk.toString();
            done();
          },
        }),
      );
      const registry = buildPluginRegistry();
      const daemon = await runDaemon({
        loaded: loadConfig(file, { registry, env: { PROXY_PASSWORD } }),
        registry,
        logger,
      });
      const agent = new Agent({ connect: { ca: ca.cert } });
      try {
        expect(proxy.carried.length).toBeGreaterThan(0);
        expect(new Set(proxy.carried.map((item) => `${item.kind} ${item.target}`))).toEqual(
          new Set([`connect ${new URL(relay.origin).host}`]),
        );

        const body = eventBody('evt_corporate');
        const t = Math.floor(Date.now() / 1000);
        const delivered = await request(daemon.webhookUrl, {
          dispatcher: agent,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'service-signature': signatureHeader([SECRET], t, Buffer.from(body)),
          },
          body,
        });
        expect(delivered.statusCode).toBe(200);
        await delivered.body.dump();
        expect(daemon.env.state.inbox.get('evt_corporate')).not.toBeNull();

        const status = await request(`${daemon.opsUrl}/status`, {
          dispatcher: agent,
          headers: { accept: 'application/json' },
        });
        const snapshot = await status.body.text();
        expect(status.statusCode).toBe(200);
        expect(snapshot).toContain('lastReachedAt');
        for (const text of [snapshot, logs]) {
          expect(text).not.toContain(PROXY_PASSWORD);
          expect(text).not.toContain(sandbox.keys.supplier);
        }
      } finally {
        await agent.close();
        await daemon.stop(5_000);
      }
    },
  );
});
