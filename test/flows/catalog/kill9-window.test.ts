/**
 * The crash window between the API's answer to a product batch and the state commit of that answer, reproduced
 * deterministically: the child process kills itself with SIGKILL right after the API answered the batch that
 * carries a chosen SKU (child.ts, killAfterAnswerFor). Whatever the ERP does next, the following run must bring
 * the API to the ERP's catalog: a product dropped meanwhile is deleted, a product kept is sent again (the
 * idempotent upsert) and then left alone, a change undone meanwhile is undone in the API too. On both state
 * backends: a SQLite file and a PostgreSQL database.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runChild } from '../documents/crash-process.js';
import { sandboxCatalog, startSupplierHarness, type SupplierHarness } from '../documents/supplier-harness.js';
import type { SendLogEntry } from './child.js';
import { readSendLog } from './send-log.js';
import { addParts, erpSql } from './catalog-support.js';
import { createTempDatabase, postgresProbe, type TempDatabase } from '../../ha/support/postgres.js';
import { stateBackends } from '../../support/state-backends.js';

const CHILD = join(import.meta.dirname, 'child.ts');
/** Each test has 60 s; a child hung past this guard is killed and reported before the test itself times out. */
const CHILD_GUARD_MS = 40_000;

let h: SupplierHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Setup {
  harness: SupplierHarness;
  base: Record<string, unknown>;
  sendLog: string;
}

const probe = await postgresProbe();
let database: TempDatabase | undefined;
afterEach(async () => {
  await database?.drop();
  database = undefined;
});

/** A harness whose catalog the child has synced once (351 demo products and 10 more), its state on `backend`. */
async function synced(backend: Backend): Promise<Setup> {
  const harness = await startSupplierHarness();
  h = harness;
  if (backend === 'postgres') database = await createTempDatabase();
  await addParts(harness, 10);
  const sendLog = join(harness.dir, 'sends.jsonl');
  const base = {
    baseUrl: harness.sandbox.baseUrl,
    apiKey: harness.sandbox.keys.supplier,
    stateFile: join(harness.dir, 'daemon.db'),
    ...(database === undefined ? {} : { stateUrl: database.url }),
    erpFile: harness.erp.file,
    sendLog,
  };
  await converge(base);
  return { harness, base, sendLog };
}

async function converge(base: Record<string, unknown>): Promise<string> {
  const exit = await runChild(CHILD, 'CATALOG_CHILD', base, null, CHILD_GUARD_MS);
  expect(exit.code, exit.stdout + exit.stderr).toBe(0);
  expect(exit.stdout).toContain('converged');
  return exit.stdout;
}

/** Runs a child that dies right after the API answered the product batch carrying `sku`. */
async function killAfterAnswer(setup: Setup, sku: string): Promise<void> {
  const exit = await runChild(
    CHILD,
    'CATALOG_CHILD',
    { ...setup.base, killAfterAnswerFor: sku },
    null,
    CHILD_GUARD_MS,
  );
  expect(exit.signal, exit.stdout + exit.stderr).toBe('SIGKILL');
}

function productSends(sendLog: string, sku: string): SendLogEntry[] {
  return readSendLog(sendLog).filter(
    (entry) => entry.key === sku && (entry.op === 'product' || entry.op === 'delete'),
  );
}

async function apiProduct(harness: SupplierHarness, sku: string) {
  const product = (await sandboxCatalog(harness.sandbox)).products[sku];
  if (product === undefined) throw new Error(`the API never received ${sku}`);
  return product;
}

type Backend = 'sqlite' | 'postgres';

// CATALOG_WINDOW_BACKENDS (test/support/state-backends.ts): `npm test` runs the state file only.
const BACKENDS = stateBackends('CATALOG_WINDOW_BACKENDS');
describe.each(
  (
    [
      ['sqlite', 'file', null],
      ['postgres', 'postgres', probe.available ? null : probe.reason],
    ] as const
  )
    .filter(([, name]) => BACKENDS.includes(name))
    .map(([backend, , skip]) => [backend, skip] as const),
)(
  'catalog: kill -9 between the API accepting a product and the state recording it (%s state)',
  (backend, skipReason) => {
    if (skipReason !== null) {
      it.skip(`skipped: ${skipReason}`, () => undefined);
      return;
    }
    it('a product the ERP drops after the crash is deleted in the API by the next run', async () => {
      const setup = await synced(backend);
      await addParts(setup.harness, 1, 'LATE');
      await killAfterAnswer(setup, 'LATE-00000');
      expect((await apiProduct(setup.harness, 'LATE-00000')).deleted_at).toBeNull();

      await erpSql(setup.harness, `UPDATE PARTS SET INACTIVE = 'Y' WHERE PARTNAME = 'LATE-00000'`);
      await converge(setup.base);
      expect((await apiProduct(setup.harness, 'LATE-00000')).deleted_at).not.toBeNull();
      // The killed process's batch is re-sent exactly first (the reconciling re-push: a late copy of it is then
      // replayed by the API, not applied), then the product is deleted.
      const sends = productSends(setup.sendLog, 'LATE-00000');
      expect(sends.map((send) => send.op)).toEqual(['product', 'product', 'delete']);
      expect(sends[1]?.content).toBe(sends[0]?.content);
      expect(sends[1]?.pid).not.toBe(sends[0]?.pid);
    }, 60_000);

    it('a product the ERP keeps is sent once more after the crash, then confirmed and left alone', async () => {
      const setup = await synced(backend);
      await addParts(setup.harness, 1, 'LATE');
      await killAfterAnswer(setup, 'LATE-00000');

      await converge(setup.base);
      await converge(setup.base);
      const sends = productSends(setup.sendLog, 'LATE-00000');
      // Once by the killed process, once by the next one (the idempotent upsert), never again.
      expect(sends.map((send) => send.op)).toEqual(['product', 'product']);
      expect(sends[0]?.pid).not.toBe(sends[1]?.pid);
      expect(sends[0]?.content).toBe(sends[1]?.content);
      const product = await apiProduct(setup.harness, 'LATE-00000');
      expect(product.deleted_at).toBeNull();
      expect(product.name).toBe('Bulk item 0');
    }, 60_000);

    it('a rename the ERP undoes after the crash is undone in the API too', async () => {
      const setup = await synced(backend);
      const original = String(
        (await erpSql(setup.harness, `SELECT PARTDES FROM PARTS WHERE PARTNAME = 'BULK-00003'`))[0]?.[
          'PARTDES'
        ],
      );
      await erpSql(setup.harness, `UPDATE PARTS SET PARTDES = 'Renamed' WHERE PARTNAME = 'BULK-00003'`);
      await killAfterAnswer(setup, 'BULK-00003');
      expect((await apiProduct(setup.harness, 'BULK-00003')).name).toBe('Renamed');

      await erpSql(setup.harness, `UPDATE PARTS SET PARTDES = :name WHERE PARTNAME = 'BULK-00003'`, {
        name: original,
      });
      await converge(setup.base);
      expect((await apiProduct(setup.harness, 'BULK-00003')).name).toBe(original);
    }, 60_000);
  },
);
