/**
 * Outbound proxy: API calls, the token exchange, uploads and signed-URL downloads go through a forward proxy
 * (absolute-URI requests for http://, CONNECT for https://); NO_PROXY bypasses it; api.proxy overrides the
 * environment; doctor names the proxy it used and never prints its password.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../cli/run-cli.js';
import { startForwardProxy, type ForwardProxy } from './helpers/forward-proxy.js';
import { makeTestCa, type TestCa } from './helpers/pki.js';
import { startTlsRelay, type TlsRelay } from './helpers/tls-relay.js';

const PROXY_PASSWORD = 'pr0xy-Pa55word-never-printed';

let sandbox: RunningSandbox;
let ca: TestCa;
let relay: TlsRelay;

beforeAll(async () => {
  sandbox = await startSandbox({});
  ca = makeTestCa();
  const leaf = ca.issue('api');
  relay = await startTlsRelay(sandbox.port, leaf.cert, leaf.key);
});

afterAll(async () => {
  await relay.close();
  await sandbox.close();
});

async function withProxy<T>(
  run: (proxy: ForwardProxy) => Promise<T>,
  options: { requireAuthorization?: string } = {},
): Promise<T> {
  const proxy = await startForwardProxy(options);
  try {
    return await run(proxy);
  } finally {
    await proxy.close();
  }
}

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('the API client behind a forward proxy', () => {
  it('sends calls, the token exchange, an upload and a download through HTTP_PROXY as absolute URIs', async () => {
    await withProxy(async (proxy) => {
      const supplier = sandbox.clients.find((client) => client.key === sandbox.keys.supplier);
      expect(supplier).toBeDefined();
      const api = createApiClient({
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.keys.supplier,
        auth: { mode: 'client_credentials', clientId: supplier?.client_id ?? '' },
        network: { env: { HTTP_PROXY: proxy.url } },
      });
      let fileId = '';
      try {
        await api.account.me();
        const uploaded = await api.files.upload({
          content: Buffer.from('%PDF-1.4 proxy test'),
          name: 'proxy.pdf',
          contentType: 'application/pdf',
          purpose: 'document_attachment',
        });
        fileId = uploaded.file.id;
        const downloadUrl = (await api.files.get(fileId)).download_url;
        expect(downloadUrl).toBeDefined();
        const download = await request(downloadUrl ?? '', { dispatcher: await api.dispatcher() });
        expect(download.statusCode).toBe(200);
        expect(Buffer.from(await download.body.arrayBuffer()).toString()).toBe('%PDF-1.4 proxy test');
      } finally {
        await api.close();
      }
      const carried = proxy.carried.map((item) => `${item.kind} ${item.method} ${item.target.split('?')[0]}`);
      expect(carried).toEqual([
        `absolute POST ${sandbox.baseUrl}/oauth/token`,
        `absolute GET ${sandbox.baseUrl}/me`,
        `absolute POST ${sandbox.baseUrl}/files`,
        `absolute GET ${sandbox.baseUrl}/files/${fileId}`,
        expect.stringMatching(new RegExp(`^absolute GET ${sandbox.origin}/`)),
      ]);
    });
  });

  it('tunnels https calls with CONNECT (HTTPS_PROXY in lower case) and trusts the private CA given', async () => {
    await withProxy(async (proxy) => {
      const api = createApiClient({
        baseUrl: `${relay.origin}/v2`,
        apiKey: sandbox.keys.supplier,
        network: { env: { https_proxy: proxy.url }, extraCaCertificates: [ca.cert] },
      });
      try {
        const me = await api.account.me();
        expect(me.account.type).toBe('supplier');
      } finally {
        await api.close();
      }
      expect(proxy.carried.map((item) => `${item.kind} ${item.target}`)).toEqual([
        `connect ${new URL(relay.origin).host}`,
      ]);
    });
  });

  it('goes direct for a host NO_PROXY lists, and the proxy sees nothing', async () => {
    await withProxy(async (proxy) => {
      const api = createApiClient({
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.keys.supplier,
        network: {
          env: { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com,127.0.0.1' },
        },
      });
      try {
        await api.account.me();
      } finally {
        await api.close();
      }
      expect(proxy.carried).toEqual([]);
    });
  });

  it('uses api.proxy over the environment, with its credentials sent as Proxy-Authorization', async () => {
    await withProxy(
      async (proxy) => {
        const api = createApiClient({
          baseUrl: sandbox.baseUrl,
          apiKey: sandbox.keys.supplier,
          network: {
            env: { HTTP_PROXY: 'http://127.0.0.1:9', NO_PROXY: '127.0.0.1' },
            proxy: { url: proxy.url, username: 'sync', password: PROXY_PASSWORD },
          },
        });
        try {
          await api.account.me();
        } finally {
          await api.close();
        }
        expect(proxy.carried.map((item) => item.proxyAuthorization)).toEqual([basic('sync', PROXY_PASSWORD)]);
      },
      { requireAuthorization: basic('sync', PROXY_PASSWORD) },
    );
  });

  it('refuses a proxy variable that is not a URL, naming the variable and not its value', () => {
    expect(() =>
      createApiClient({
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.keys.supplier,
        network: { env: { HTTPS_PROXY: `http://u:${PROXY_PASSWORD}@[bad` } },
      }),
    ).toThrow(/^HTTPS_PROXY is not a URL \(expected http:\/\/host:port\)$/);
  });
});

describe('doctor and the proxy', () => {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-proxy-'));

  function writeConfig(name: string, apiBlock: string[]): string {
    const file = join(dir, name);
    writeFileSync(
      file,
      [
        'api:',
        `  base_url: ${sandbox.baseUrl}`,
        '  api_key: ${SUPPLY_KEY}',
        ...apiBlock,
        'state:',
        `  path: ${name}.db`,
        '',
      ].join('\n'),
    );
    return file;
  }

  it(
    'names the proxy api.proxy set, reaches the API through it, and never prints the password',
    { timeout: 60_000 },
    async () => {
      await withProxy(
        async (proxy) => {
          const file = writeConfig('explicit.yaml', [
            '  proxy:',
            `    url: ${proxy.url}`,
            '    username: sync',
            '    password: ${PROXY_PASSWORD}',
          ]);
          const result = await runCli(['doctor', '--config', file], {
            SUPPLY_KEY: sandbox.keys.supplier,
            PROXY_PASSWORD,
            NO_PROXY: '127.0.0.1',
          });
          const output = result.stdout + result.stderr;
          expect(output).toMatch(
            new RegExp(
              `^OK {3}api proxy {10}${proxy.url} for 127\\.0\\.0\\.1:${sandbox.port} \\(proxy from api\\.proxy\\.url\\)`,
              'm',
            ),
          );
          expect(output).toMatch(/^OK {3}api {16}GET \/me at /m);
          expect(proxy.carried.some((item) => item.target === `${sandbox.baseUrl}/me`)).toBe(true);
          expect(output).not.toContain(PROXY_PASSWORD);
          expect(output).not.toContain(Buffer.from(`sync:${PROXY_PASSWORD}`).toString('base64'));
        },
        { requireAuthorization: basic('sync', PROXY_PASSWORD) },
      );
    },
  );

  it(
    'shows an HTTP_PROXY with credentials with the password hidden, and says when NO_PROXY sends it direct',
    { timeout: 60_000 },
    async () => {
      await withProxy(async (proxy) => {
        const file = writeConfig('env.yaml', []);
        const withCredentials = proxy.url.replace('http://', `http://sync:${PROXY_PASSWORD}@`);
        const proxied = await runCli(['doctor', '--config', file], {
          SUPPLY_KEY: sandbox.keys.supplier,
          HTTP_PROXY: withCredentials,
        });
        const output = proxied.stdout + proxied.stderr;
        expect(output).toContain(
          `api proxy          ${proxy.url.replace('http://', 'http://sync:***@')} for 127.0.0.1:${sandbox.port} (proxy from HTTP_PROXY)`,
        );
        expect(output).not.toContain(PROXY_PASSWORD);
        expect(proxy.carried.length).toBeGreaterThan(0);
        expect(proxy.carried[0]?.proxyAuthorization).toBe(basic('sync', PROXY_PASSWORD));

        const before = proxy.carried.length;
        const direct = await runCli(['doctor', '--config', file], {
          SUPPLY_KEY: sandbox.keys.supplier,
          HTTP_PROXY: withCredentials,
          no_proxy: 'localhost,127.0.0.1',
        });
        expect(direct.stdout).toContain(
          `api proxy          none for 127.0.0.1:${sandbox.port} (direct: no_proxy lists 127.0.0.1)`,
        );
        expect(direct.stdout).toMatch(/^OK {3}api {16}GET \/me at /m);
        expect(proxy.carried.length).toBe(before);
      });
    },
  );

  it(
    'reaches the embedded sandbox directly whatever the proxy variables say',
    { timeout: 60_000 },
    async () => {
      const file = join(dir, 'embedded.yaml');
      writeFileSync(file, ['api:', '  sandbox: embedded', 'state:', '  path: embedded.db', ''].join('\n'));
      const result = await runCli(['doctor', '--config', file], {
        HTTP_PROXY: 'http://127.0.0.1:9',
        HTTPS_PROXY: 'http://127.0.0.1:9',
      });
      expect(result.stdout).toMatch(
        /^OK {3}api proxy {10}none: the embedded sandbox runs inside this process$/m,
      );
      expect(result.stdout).toMatch(/^OK {3}api {16}GET \/me at embedded sandbox/m);
    },
  );
  it(
    'rejects an api.proxy.url that does not parse, naming the file and the key',
    { timeout: 30_000 },
    async () => {
      const file = writeConfig('bad.yaml', ['  proxy:', '    url: proxy.example.com:3128']);
      const result = await runCli(['config', 'validate', '--config', file], {
        SUPPLY_KEY: sandbox.keys.supplier,
      });
      expect(result.code).not.toBe(0);
      expect(result.stdout + result.stderr).toMatch(
        /bad\.yaml.*api\.proxy\.url.*expected a proxy URL like http:\/\/proxy\.example\.com:3128/,
      );
    },
  );
});
