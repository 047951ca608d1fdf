/**
 * reconcile orders: the real orders job (`supply-sync sync orders`) writes the sandbox's orders into the demo ERP
 * and acknowledges them; reconcile then finds every order in the ERP with the ERP number its acknowledgement
 * carries. An ERP order deleted and an ERP order renumbered by hand are each named, with exit 1.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import Database from 'better-sqlite3';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { runCli } from '../cli/run-cli.js';
import type { ReconcileReport } from '../../src/flows/reconcile/report.js';

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let dir: string;
let config: string;

beforeAll(async () => {
  sandbox = await startSandbox({ createDomain });
  dir = await mkdtemp(join(tmpdir(), 'reconcile-orders-'));
  config = join(dir, 'supply-sync.yaml');
  await writeFile(
    config,
    stringify({
      api: { base_url: sandbox.baseUrl, api_key: sandbox.keys.supplier },
      state: { path: join(dir, 'state.db') },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      jobs: { orders: { flow: 'orders', connector: 'erp' } },
    }),
  );
  const sync = await runCli(['-c', config, 'sync', 'orders']);
  if (sync.code !== 0) throw new Error(`sync orders failed: ${sync.stderr}`);
}, 120_000);
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

/** The demo ERP's database as someone at the ERP edits it (foreign keys off, so an order can be renumbered). */
function erp(sql: string): Record<string, unknown>[] {
  const db = new Database(join(dir, 'erp', 'demo-erp.sqlite'));
  try {
    db.pragma('foreign_keys = OFF');
    const statement = db.prepare(sql);
    return statement.reader ? (statement.all() as Record<string, unknown>[]) : (statement.run(), []);
  } finally {
    db.close();
  }
}

const reconcile = async (...args: string[]) => {
  const result = await runCli(['-c', config, 'reconcile', 'orders', '--since', '400d', '--json', ...args]);
  return {
    ...result,
    report: result.stdout === '' ? undefined : (JSON.parse(result.stdout) as ReconcileReport),
  };
};

describe('reconcile orders', () => {
  it(
    'finds every order the job wrote in the ERP with the acknowledged ERP number',
    { timeout: 60_000 },
    async () => {
      const { code, report, stderr } = await reconcile();
      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(report?.differences).toEqual([]);
      const inErp = erp('SELECT COUNT(*) AS n FROM ORDERS WHERE API_ORDER_ID IS NOT NULL');
      expect(report?.counts['matched']).toBeGreaterThan(0);
      expect((report?.counts['matched'] ?? 0) + (report?.counts['not_acknowledged'] ?? 0)).toBe(
        Number(inErp[0]?.['n']),
      );
    },
  );

  it('names an ERP order deleted and one renumbered by hand', { timeout: 60_000 }, async () => {
    const [gone, renumbered] = erp(
      'SELECT API_ORDER_ID AS id, ORDNAME AS number FROM ORDERS WHERE API_ORDER_ID IS NOT NULL ORDER BY ORDNAME LIMIT 2',
    );
    erp(`DELETE FROM ORDERITEMS WHERE ORDNAME = '${String(gone?.['number'])}'`);
    erp(`DELETE FROM ORDERS WHERE API_ORDER_ID = '${String(gone?.['id'])}'`);
    erp(`UPDATE ORDERITEMS SET ORDNAME = 'SO-HAND-1' WHERE ORDNAME = '${String(renumbered?.['number'])}'`);
    erp(`UPDATE ORDERS SET ORDNAME = 'SO-HAND-1' WHERE API_ORDER_ID = '${String(renumbered?.['id'])}'`);
    const out = join(dir, 'orders.csv');
    const { code, report } = await reconcile('--out', out);
    expect(code).toBe(1);
    const found = report?.differences.map((d) => [d.kind, d.apiIds[0], d.detail]);
    expect(found).toContainEqual([
      'missing_in_erp',
      gone?.['id'],
      `written as ERP order ${String(gone?.['number'])}, which the ERP no longer holds`,
    ]);
    expect(found).toContainEqual([
      'erp_number_differs',
      renumbered?.['id'],
      `API acknowledgement ${String(renumbered?.['number'])}, ERP order SO-HAND-1`,
    ]);
    expect(found).toHaveLength(2);
  });

  it(
    'runs as the reconcile-orders job kind: failed in run history, naming the differences by kind',
    { timeout: 60_000 },
    async () => {
      const parsed = parse(await readFile(config, 'utf8')) as { jobs: Record<string, unknown> };
      parsed.jobs['orders-check'] = {
        flow: 'reconcile-orders',
        connector: 'erp',
        options: { since: '400d' },
      };
      await writeFile(config, stringify(parsed));
      const run = await runCli(['-c', config, 'sync', 'orders-check']);
      expect(run.code).not.toBe(0);
      const db = new Database(join(dir, 'state.db'), { readonly: true });
      try {
        const last = db
          .prepare("SELECT outcome, error FROM runs WHERE job = 'orders-check' ORDER BY id DESC LIMIT 1")
          .get() as { outcome: string; error: string };
        expect(last.outcome).toBe('failed');
        expect(last.error).toMatch(
          /^2 difference\(s\), orders changed since \S+: 1 missing_in_erp, 1 erp_number_differs; run `supply-sync reconcile orders`/,
        );
      } finally {
        db.close();
      }
    },
  );

  it(
    'says plainly why documents and the catalog cannot be reconciled, with exit 2',
    { timeout: 30_000 },
    async () => {
      const documents = await runCli(['-c', config, 'reconcile', 'documents']);
      expect(documents.code).toBe(2);
      expect(documents.stderr).toContain(
        'reconcile documents cannot run: the document source of a connector lists only',
      );
      const catalog = await runCli(['-c', config, 'reconcile', 'catalog']);
      expect(catalog.code).toBe(2);
      expect(catalog.stderr).toContain('the contract gives a supplier no read of its own catalog');
      const since = await runCli(['-c', config, 'reconcile', 'orders', '--since', 'a week']);
      expect(since.code).toBe(2);
      expect(since.stderr).toContain('--since "a week" is not a duration like 7d');
    },
  );
});
