/**
 * `supply-sync catalog remove` as a user runs it (the CLI in a child process) against the sandbox over HTTP and a
 * real state file: a dry run lists and sends nothing, the real run deletes what it listed, a 404 is "already
 * gone", SKUs the daemon synced itself are left to the daemon, bad lists are refused before anything is sent, and
 * the API key is never printed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli } from './run-cli.js';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
let sandbox: Sandbox;
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-catalog-remove-'));
const configFile = join(dir, 'supply-sync.yaml');
const skusFile = join(dir, 'skus.txt');

function writeConfig(apiKey: string, statePath = 'state.db'): void {
  writeFileSync(
    configFile,
    [
      'api:',
      `  base_url: ${sandbox.baseUrl}`,
      `  api_key: ${apiKey}`,
      'state:',
      `  path: ${statePath}`,
      'connectors:',
      '  erp:',
      '    type: sql',
      '    connection: { driver: sqlite, file: erp.db }',
      "    statements: { catalog: { products: 'SELECT code AS sku, name FROM items' } }",
      'jobs:',
      '  catalog:',
      '    flow: catalog',
      '    connector: erp',
      "    schedule: '0 * * * *'",
      '',
    ].join('\n'),
  );
}

beforeAll(async () => {
  sandbox = await startSandbox({ createDomain });
  const client = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.supplier });
  try {
    const product = (sku: string) => ({ sku, name: `Old ${sku}`, unit: 'unit' });
    const answer = await client.catalog.upsertProducts(
      ['OLD-1', 'OLD-2', 'OLD-3', 'SYNCED-1', 'PENDING-1'].map(product),
    );
    expect(answer.items.every((item) => item.status !== 'failed')).toBe(true);
  } finally {
    await client.close();
  }
  const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
  try {
    state.hashes.setMany('catalog:products', [['SYNCED-1', 'h1']]);
    state.hashes.setMany('catalog:products:pending', [['PENDING-1', 'h2']]);
  } finally {
    state.close();
  }
  writeConfig(sandbox.keys.supplier);
  writeFileSync(
    skusFile,
    '# products listed before the daemon\nOLD-1\n  OLD-2  \n\nOLD-1\nGONE-9\nSYNCED-1\nPENDING-1\n',
  );
}, 60_000);

afterAll(async () => {
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

// The API offers a supplier no read of its own catalog (docs/contract-gaps.md), so the dry run cannot tell a SKU
// not in the catalog from one it holds; it says so instead of promising a deletion.
const NO_CATALOG_READ =
  'a SKU not in the catalog shows as already gone only in the real run: the API offers a supplier no read of its own catalog';

const cli = (...args: string[]) => runCli(['catalog', 'remove', ...args, '--config', configFile]);

async function deletedAt(sku: string): Promise<string | null | undefined> {
  const products = (await sandbox.control.state())['products'] as Record<
    string,
    { deleted_at: string | null }
  >;
  return products[sku]?.deleted_at;
}

describe('supply-sync catalog remove', () => {
  it('dry run first, then the deletions, then nothing left to delete', { timeout: 90_000 }, async () => {
    const preview = await cli('--skus-file', skusFile, '--dry-run');
    expect(preview.code, preview.stderr).toBe(0);
    const lines = preview.stdout.trim().split('\n');
    expect(lines).toEqual([
      'would delete  OLD-1 (unless already gone)',
      'would delete  OLD-2 (unless already gone)',
      'would delete  GONE-9 (unless already gone)',
      expect.stringMatching(/^skipped {7}SYNCED-1 \(job catalog synced it/),
      expect.stringMatching(/^skipped {7}PENDING-1 \(job catalog synced it/),
      'dry run: would delete 3 unless already gone, skipped 2; nothing was sent',
      NO_CATALOG_READ,
    ]);
    expect(await deletedAt('OLD-1')).toBeNull();
    expect(await deletedAt('OLD-2')).toBeNull();

    const run = await cli('--skus-file', skusFile);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^deleted {7}OLD-1$/m);
    expect(run.stdout).toMatch(/^deleted {7}OLD-2$/m);
    expect(run.stdout).toMatch(/^already gone {2}GONE-9 \(404/m);
    expect(run.stdout).toMatch(/^deleted 2, already gone 1, skipped 2, failed 0$/m);
    expect(await deletedAt('OLD-1')).not.toBeNull();
    expect(await deletedAt('OLD-2')).not.toBeNull();
    expect(await deletedAt('OLD-3')).toBeNull();
    expect(await deletedAt('SYNCED-1')).toBeNull();
    expect(await deletedAt('PENDING-1')).toBeNull();

    const again = await cli('--skus-file', skusFile);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^deleted 0, already gone 3, skipped 2, failed 0$/m);
    for (const output of [preview, run, again])
      expect(output.stdout + output.stderr).not.toContain(sandbox.keys.supplier);
  });

  it(
    'refuses a bad list before sending anything, naming the file and line',
    { timeout: 60_000 },
    async () => {
      const bad = join(dir, 'bad.txt');
      writeFileSync(bad, `OLD-3\n${'X'.repeat(65)}\n`);
      const refused = await cli('--skus-file', bad);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain(`${bad} line 2: a SKU is at most 64 characters, this one has 65`);
      expect(await deletedAt('OLD-3')).toBeNull();

      const empty = join(dir, 'empty.txt');
      writeFileSync(empty, '# nothing\n\n');
      expect((await cli('--skus-file', empty)).stderr).toContain(`${empty}: no SKUs found`);
      const missing = await cli('--skus-file', join(dir, 'nope.txt'));
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('nope.txt cannot be read (ENOENT)');
    },
  );

  it('stops at the first 401 naming api.api_key, and never prints the key', { timeout: 60_000 }, async () => {
    const wrongKey = 'svc_test_this-key-does-not-exist-0123456789';
    writeConfig(wrongKey);
    try {
      const failed = await cli('--skus-file', skusFile);
      expect(failed.code).toBe(1);
      expect(failed.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(/^failed {8}OLD-1 \(401 /),
        'deleted 0, already gone 0, skipped 0, failed 1, not sent 4',
      ]);
      expect(failed.stderr).toContain('the API refused api.api_key (401');
      expect(failed.stderr).toContain('4 SKUs not sent');
      expect(failed.stdout + failed.stderr).not.toContain(wrongKey);
    } finally {
      writeConfig(sandbox.keys.supplier);
    }
  });

  it(
    'reports an unreachable API as failed for the SKU, and still prints the summary',
    { timeout: 90_000 },
    async () => {
      const unreachable = join(dir, 'unreachable.yaml');
      // A loopback port that was free a moment ago: nothing listens there, every connection is refused.
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      writeFileSync(
        unreachable,
        [
          'api:',
          `  base_url: http://127.0.0.1:${port}/v2`,
          `  api_key: ${sandbox.keys.supplier}`,
          'state:',
          '  path: state.db',
          '',
        ].join('\n'),
      );
      const list = join(dir, 'one.txt');
      writeFileSync(list, 'OLD-3\n');
      const result = await runCli(['catalog', 'remove', '--skus-file', list, '--config', unreachable]);
      expect(result.code).toBe(1);
      expect(result.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(/^failed {8}OLD-3 \(0 network_error: .*ECONNREFUSED/),
        'deleted 0, already gone 0, skipped 0, failed 1',
      ]);
      expect(result.stderr).toContain('1 of 1 deletions failed');
      expect(result.stdout + result.stderr).not.toContain(sandbox.keys.supplier);
    },
  );

  it(
    'refuses to run without the state file, naming state.path, unless --no-state-check says so',
    { timeout: 60_000 },
    async () => {
      const list = join(dir, 'synced.txt');
      writeFileSync(list, 'SYNCED-1\n');
      writeConfig(sandbox.keys.supplier, 'elsewhere.db');
      try {
        const refused = await cli('--skus-file', list);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain('state.path');
        expect(refused.stderr).toContain('elsewhere.db does not exist');
        expect(refused.stderr).toContain('--no-state-check');
        expect(refused.stdout).toBe('');
        expect(await deletedAt('SYNCED-1')).toBeNull();

        const unchecked = await cli('--skus-file', list, '--dry-run', '--no-state-check');
        expect(unchecked.code, unchecked.stderr).toBe(0);
        expect(unchecked.stdout.trim().split('\n')).toEqual([
          expect.stringMatching(/^state check off \(--no-state-check\): SKUs the daemon synced/),
          'would delete  SYNCED-1 (unless already gone)',
          'dry run: would delete 1 unless already gone, skipped 0; nothing was sent',
          NO_CATALOG_READ,
        ]);
        expect(await deletedAt('SYNCED-1')).toBeNull();
      } finally {
        writeConfig(sandbox.keys.supplier);
      }
    },
  );

  it('leaves alone a SKU tracked by a catalog job no longer in the config', { timeout: 60_000 }, async () => {
    const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
    try {
      state.hashes.setMany('retired:products', [['OLD-3', 'h3']]);
    } finally {
      state.close();
    }
    const list = join(dir, 'retired.txt');
    writeFileSync(list, 'OLD-3\n');
    const run = await cli('--skus-file', list);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^skipped {7}OLD-3 \(job retired synced it/m);
    expect(run.stdout).toMatch(/^deleted 0, already gone 0, skipped 1, failed 0$/m);
    expect(await deletedAt('OLD-3')).toBeNull();
  });
});
