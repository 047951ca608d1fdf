/**
 * Private CAs: an https API whose certificate a CA made here with openssl signed. Without api.ca_file the client
 * refuses it and doctor names the certificate's subject and issuer and api.ca_file as the fix; with a bundle of
 * several certificates holding that CA, the client and doctor trust it (the system store still applies).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../cli/run-cli.js';
import { makeTestCa, type TestCa } from './helpers/pki.js';
import { startTlsRelay, type TlsRelay } from './helpers/tls-relay.js';

let sandbox: RunningSandbox;
let ca: TestCa;
let otherCa: TestCa;
let relay: TlsRelay;
let dir: string;

beforeAll(async () => {
  sandbox = await startSandbox({});
  ca = makeTestCa('Supply Test Inspection CA');
  otherCa = makeTestCa('Unrelated Test CA');
  const leaf = ca.issue('api');
  relay = await startTlsRelay(sandbox.port, leaf.cert, leaf.key);
  dir = mkdtempSync(join(tmpdir(), 'supply-sync-ca-'));
});

afterAll(async () => {
  await relay.close();
  await sandbox.close();
});

function writeConfig(name: string, extra: string[]): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    [
      'api:',
      `  base_url: ${relay.origin}/v2`,
      '  api_key: ${SUPPLY_KEY}',
      ...extra,
      'state:',
      `  path: ${name}.db`,
      '',
    ].join('\n'),
  );
  return file;
}

describe('api.ca_file', () => {
  it('the client refuses the private certificate without the CA and accepts it with it', async () => {
    const untrusting = createApiClient({
      baseUrl: `${relay.origin}/v2`,
      apiKey: sandbox.keys.supplier,
      retry: { maxAttempts: 1 },
      network: { env: {} },
    });
    await expect(untrusting.account.me()).rejects.toMatchObject({ code: 'network_error' });
    await untrusting.close();

    const trusting = createApiClient({
      baseUrl: `${relay.origin}/v2`,
      apiKey: sandbox.keys.supplier,
      network: { env: {}, extraCaCertificates: [otherCa.cert, ca.cert] },
    });
    try {
      expect((await trusting.account.me()).account.type).toBe('supplier');
    } finally {
      await trusting.close();
    }
  });

  it(
    'doctor names the subject, the issuer and api.ca_file when the certificate is not trusted',
    { timeout: 60_000 },
    async () => {
      const file = writeConfig('untrusted.yaml', ['  timeout: 3s']);
      const result = await runCli(['doctor', '--config', file], { SUPPLY_KEY: sandbox.keys.supplier });
      expect(result.code).not.toBe(0);
      expect(result.stdout).toMatch(
        /^FAIL api tls {12}127\.0\.0\.1:\d+ presents "CN=127\.0\.0\.1" issued by "O=Supply Test Corp, CN=Supply Test Inspection CA": not trusted \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\) -> fix: save the PEM certificate of the CA "O=Supply Test Corp, CN=Supply Test Inspection CA" .* set api\.ca_file to that file$/m,
      );
      expect(result.stdout).toMatch(
        /^FAIL api {16}GET \/me at https:\/\/127\.0\.0\.1:\d+\/v2 failed: .*network error/m,
      );
    },
  );

  it(
    'doctor and the client pass with a bundle of several certificates in api.ca_file',
    { timeout: 60_000 },
    async () => {
      const bundle = join(dir, 'corp-bundle.pem');
      writeFileSync(bundle, `${otherCa.cert}\n${ca.cert}`);
      const file = writeConfig('trusted.yaml', ['  ca_file: corp-bundle.pem']);
      const result = await runCli(['doctor', '--config', file], { SUPPLY_KEY: sandbox.keys.supplier });
      expect(result.stdout).toMatch(
        /^OK {3}api tls {12}127\.0\.0\.1:\d+ presents "CN=127\.0\.0\.1" issued by "O=Supply Test Corp, CN=Supply Test Inspection CA", trusted$/m,
      );
      expect(result.stdout).toMatch(/^OK {3}api {16}GET \/me at https:\/\/127\.0\.0\.1:\d+\/v2: /m);
    },
  );

  it('names api.ca_file when the file is missing or holds no certificate', { timeout: 60_000 }, async () => {
    const missing = writeConfig('missing.yaml', ['  ca_file: nowhere.pem']);
    const missingResult = await runCli(['doctor', '--config', missing], {
      SUPPLY_KEY: sandbox.keys.supplier,
    });
    expect(missingResult.stdout).toMatch(
      /^FAIL api ca_file {8}api\.ca_file: .*nowhere\.pem: file not found/m,
    );

    writeFileSync(join(dir, 'empty.pem'), 'not a certificate\n');
    const empty = writeConfig('empty.yaml', ['  ca_file: empty.pem']);
    const emptyResult = await runCli(['run', '--config', empty], { SUPPLY_KEY: sandbox.keys.supplier });
    expect(emptyResult.code).not.toBe(0);
    expect(emptyResult.stdout + emptyResult.stderr).toMatch(
      /api\.ca_file: .*empty\.pem: no PEM certificate found/,
    );
  });
});
