/**
 * The csv-expenses drop folder asks the connector's commit gate before each write that records a sent expense
 * (the `.expenses-sent.csv` append) and before each move to done/: a refused gate leaves the folder as it was, and
 * its error is what the caller sees, unchanged.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ExpenseSource } from '../../../src/connector-contract/capabilities.js';
import {
  csvExpensesConfigSchema,
  csvExpensesConnectorDefinition,
  SENT_LEDGER,
} from '../../../connectors/csv-expenses/index.js';

const HEADER =
  'reference,vendor,doc_type,doc_date,branch,doc_number,category,amount_before_vat,vat_amount,description,attachment';

class LeadershipLostError extends Error {
  override readonly name = 'LeadershipLostError';
}

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function gatedFolder(): Promise<{
  dir: string;
  source: ExpenseSource;
  gate: { refuse: boolean; asked: number };
}> {
  const dir = await mkdtemp(join(tmpdir(), 'csv-expenses-gate-'));
  dirs.push(dir);
  const gate = { refuse: false, asked: 0 };
  const config = csvExpensesConfigSchema.parse({ in_dir: '.', min_age: 0 });
  const connector = await csvExpensesConnectorDefinition.create(config, {
    name: 'drop',
    baseDir: dir,
    mayCommit: () => {
      gate.asked += 1;
      return gate.refuse ? Promise.reject(new LeadershipLostError('the term ended')) : Promise.resolve();
    },
  });
  const source = connector.capabilities.expenseSource;
  if (source === undefined) throw new Error('no expenseSource');
  return { dir, source, gate };
}

/** Every file of the folder, done/ included, with its contents. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    files[file.slice(dir.length + 1)] = await readFile(file, 'utf8');
  }
  return files;
}

describe('csv-expenses commit gate', () => {
  it('a refused gate leaves the folder unchanged; an allowed one writes the ledger and moves to done/', async () => {
    const { dir, source, gate } = await gatedFolder();
    await writeFile(join(dir, 'r1.pdf'), 'receipt');
    await writeFile(
      join(dir, 'batch.csv'),
      `${HEADER}\nR1,ELEC,receipt,2026-11-20,TLV01,,UTIL,1.00,,,r1.pdf\n`,
    );
    expect((await source.listPendingExpenses()).map((e) => e.ref)).toEqual(['R1']);
    const before = await snapshot(dir);

    gate.refuse = true;
    await expect(source.markExpenseSent('R1', 'exp_1')).rejects.toThrow(LeadershipLostError);
    expect(gate.asked).toBe(1);
    expect(await snapshot(dir)).toEqual(before);

    gate.refuse = false;
    await source.markExpenseSent('R1', 'exp_1');
    expect(await readFile(join(dir, SENT_LEDGER), 'utf8')).toContain('R1,exp_1,batch.csv');
    expect((await readdir(join(dir, 'done'))).sort()).toEqual(['batch.csv', 'r1.pdf']);
  });

  it('a refused gate moves nothing to done/ once the ledger holds every expense of a file', async () => {
    const { dir, source, gate } = await gatedFolder();
    await writeFile(join(dir, 'a.csv'), `${HEADER}\nR1,ELEC,receipt,2026-11-20,TLV01,,UTIL,1.00,,,\n`);
    await writeFile(
      join(dir, SENT_LEDGER),
      'reference,api_expense_id,file,sent_at\r\nR1,exp_1,a.csv,2026-11-20T00:00:00.000Z\r\n',
    );
    const before = await snapshot(dir);

    gate.refuse = true;
    await expect(source.listPendingExpenses()).rejects.toThrow(LeadershipLostError);
    expect(await snapshot(dir)).toEqual(before);

    gate.refuse = false;
    expect(await source.listPendingExpenses()).toEqual([]);
    expect(await readdir(join(dir, 'done'))).toEqual(['a.csv']);
  });
});
