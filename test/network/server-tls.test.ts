/**
 * The daemon's own server over https (server.tls): signed webhooks and the operations endpoints are served with a
 * certificate from a CA made here with openssl; renewed certificate files are put in force without a restart
 * while webhooks keep arriving, none refused or lost; client certificates are required with server.tls.ca_file;
 * unusable files stop the start with the key named.
 */
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { signatureHeader } from '../../src/webhooks/signature.js';
import { eventBody } from '../webhooks/support.js';
import { writeDaemonConfig } from './helpers/daemon-config.js';
import { makeTestCa, type Issued, type TestCa } from './helpers/pki.js';

const SECRET = 'whsec_server_tls_test_secret_0123456789';

let sandbox: RunningSandbox;
let ca: TestCa;
let first: Issued;
let renewed: Issued;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({});
  ca = makeTestCa('Supply Test Server CA');
  first = ca.issue('server-first');
  renewed = ca.issue('server-renewed');
  dir = mkdtempSync(join(tmpdir(), 'supply-sync-server-tls-'));
});

afterAll(async () => {
  await sandbox.close();
});

function writeConfig(name: string, tlsBlock: string[]): string {
  return writeDaemonConfig({
    dir,
    name,
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.keys.supplier,
    webhookSecret: SECRET,
    serverLines: tlsBlock,
  });
}

async function start(file: string): Promise<Daemon> {
  const registry = buildPluginRegistry();
  return runDaemon({ loaded: loadConfig(file, { registry }), registry });
}

function signedPost(agent: Agent, url: string, id: string) {
  const body = eventBody(id);
  const t = Math.floor(Date.now() / 1000);
  return request(url, {
    dispatcher: agent,
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'service-signature': signatureHeader([SECRET], t, Buffer.from(body)),
    },
    body,
  });
}

/** The serial number of the certificate a fresh handshake gets. */
function presentedSerial(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), ca: ca.cert }, () => {
      resolve(socket.getPeerCertificate().serialNumber);
      socket.destroy();
    });
    socket.on('error', reject);
  });
}

function serialOf(issued: Issued): string {
  return new X509Certificate(issued.cert).serialNumber;
}

describe('server.tls', () => {
  it('serves signed webhooks and the operations endpoints over https only', async () => {
    copyFileSync(first.certFile, join(dir, 'a.pem'));
    copyFileSync(first.keyFile, join(dir, 'a.key'));
    const daemon = await start(
      writeConfig('https', ['  tls:', '    cert_file: a.pem', '    key_file: a.key']),
    );
    const agent = new Agent({ connect: { ca: ca.cert } });
    try {
      expect(daemon.webhookUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/webhooks$/);
      const accepted = await signedPost(agent, daemon.webhookUrl, 'evt_tls_1');
      expect(accepted.statusCode).toBe(200);
      expect(await accepted.body.json()).toEqual({ received: true, duplicate: false });
      expect(daemon.env.state.inbox.get('evt_tls_1')?.type).toBe('order.created');

      const unsigned = await request(daemon.webhookUrl, {
        dispatcher: agent,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: eventBody('evt_tls_unsigned'),
      });
      expect(unsigned.statusCode).toBe(400);
      await unsigned.body.dump();
      expect(daemon.env.state.inbox.get('evt_tls_unsigned')).toBeNull();

      const health = await request(`${daemon.opsUrl}/healthz`, { dispatcher: agent });
      expect(health.statusCode).toBe(200);
      await health.body.dump();
      await expect(
        request(daemon.opsUrl.replace('https:', 'http:') + '/healthz', { headersTimeout: 5_000 }),
      ).rejects.toThrow();
    } finally {
      await agent.close();
      await daemon.stop(5_000);
    }
  });

  it(
    'puts renewed certificate files in force without a restart, while every webhook is stored',
    { timeout: 60_000 },
    async () => {
      copyFileSync(first.certFile, join(dir, 'r.pem'));
      copyFileSync(first.keyFile, join(dir, 'r.key'));
      const daemon = await start(
        writeConfig('reload', ['  tls:', '    cert_file: r.pem', '    key_file: r.key']),
      );
      const agent = new Agent({ connect: { ca: ca.cert }, pipelining: 1 });
      try {
        expect(await presentedSerial(daemon.opsUrl)).toBe(serialOf(first));
        const statuses: number[] = [];
        let sent = 0;
        let renewedSeen = false;
        let afterRenewal = 0;
        const sending = (async () => {
          // Bounded: stops 10 deliveries after the new certificate is seen, or after 400 in all.
          while (sent < 400 && afterRenewal < 10) {
            const response = await signedPost(agent, daemon.webhookUrl, `evt_reload_${sent}`);
            sent += 1;
            statuses.push(response.statusCode);
            await response.body.dump();
            if (renewedSeen) afterRenewal += 1;
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
        })();
        // The key first, then the certificate: for a moment the pair does not match and must not be used.
        await new Promise((resolve) => setTimeout(resolve, 200));
        copyFileSync(renewed.keyFile, join(dir, 'r.key'));
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        // The half-renewed pair was skipped: new handshakes still get the first certificate.
        expect(await presentedSerial(daemon.opsUrl)).toBe(serialOf(first));
        copyFileSync(renewed.certFile, join(dir, 'r.pem'));
        const deadline = Date.now() + 15_000;
        while (!renewedSeen && Date.now() < deadline) {
          renewedSeen = (await presentedSerial(daemon.opsUrl)) === serialOf(renewed);
          if (!renewedSeen) await new Promise((resolve) => setTimeout(resolve, 200));
        }
        await sending;
        expect(renewedSeen).toBe(true);
        expect(statuses.length).toBe(sent);
        expect(statuses.filter((status) => status !== 200)).toEqual([]);
        for (let i = 0; i < sent; i += 1)
          expect(daemon.env.state.inbox.get(`evt_reload_${i}`)).not.toBeNull();
      } finally {
        await agent.close();
        await daemon.stop(5_000);
      }
    },
  );

  it('requires a client certificate signed by server.tls.ca_file when it is set', async () => {
    const client = ca.issue('client', 'api-sender');
    const file = writeConfig('mutual', [
      '  tls:',
      `    cert_file: ${first.certFile}`,
      `    key_file: ${first.keyFile}`,
      `    ca_file: ${ca.certFile}`,
    ]);
    const daemon = await start(file);
    const anonymous = new Agent({ connect: { ca: ca.cert } });
    const identified = new Agent({ connect: { ca: ca.cert, cert: client.cert, key: client.key } });
    try {
      await expect(request(`${daemon.opsUrl}/healthz`, { dispatcher: anonymous })).rejects.toThrow();
      const response = await signedPost(identified, daemon.webhookUrl, 'evt_mutual');
      expect(response.statusCode).toBe(200);
      await response.body.dump();
    } finally {
      await anonymous.close();
      await identified.close();
      await daemon.stop(5_000);
    }
  });

  it('serves the webhook path alone on a separate https listener, the operations endpoints stay on their port', async () => {
    const daemon = await start(
      writeConfig('separate', [
        '  webhooks:',
        '    host: 127.0.0.1',
        '    port: 0',
        '    tls:',
        `      cert_file: ${first.certFile}`,
        `      key_file: ${first.keyFile}`,
      ]),
    );
    const agent = new Agent({ connect: { ca: ca.cert } });
    try {
      expect(daemon.opsUrl).toMatch(/^http:\/\//);
      expect(daemon.webhookUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/webhooks$/);
      expect(new URL(daemon.webhookUrl).port).not.toBe(new URL(daemon.opsUrl).port);
      const accepted = await signedPost(agent, daemon.webhookUrl, 'evt_separate');
      expect(accepted.statusCode).toBe(200);
      await accepted.body.dump();
      expect(daemon.env.state.inbox.get('evt_separate')).not.toBeNull();
      const onOpsPort = await fetch(`${daemon.opsUrl}/webhooks`, { method: 'POST', body: '{}' });
      expect(onOpsPort.status).toBe(404);
      for (const path of ['/metrics', '/status', '/healthz']) {
        const response = await request(new URL(path, daemon.webhookUrl).href, { dispatcher: agent });
        expect(response.statusCode, path).toBe(404);
        await response.body.dump();
      }
      expect((await fetch(`${daemon.opsUrl}/metrics`)).status).toBe(200);
    } finally {
      await agent.close();
      await daemon.stop(5_000);
    }
  });

  it('refuses to start with a missing certificate or a key of another certificate, naming the key', async () => {
    const missing = writeConfig('missing', [
      '  tls:',
      '    cert_file: nowhere.pem',
      `    key_file: ${first.keyFile}`,
    ]);
    await expect(start(missing)).rejects.toThrow(/^server\.tls\.cert_file: .*nowhere\.pem: file not found$/);

    const mismatched = writeConfig('mismatched', [
      '  tls:',
      `    cert_file: ${first.certFile}`,
      `    key_file: ${renewed.keyFile}`,
    ]);
    const error = await start(mismatched).then(
      () => new Error('started'),
      (reason: unknown) => reason as Error,
    );
    expect(error.message).toMatch(
      /^server\.tls\.key_file: .*server-renewed\.key does not match the certificate in server\.tls\.cert_file/,
    );
    expect(error.message).not.toContain('PRIVATE KEY');
    expect(error.message).not.toContain(renewed.key.split('\n')[1] ?? 'x');
  });
});
