/**
 * The demo's back office (`npm start`): every file it drops is read by the csv-expenses folder, and every code in it
 * is mapped by config/demo.yaml's tables into a body the contract accepts, so the demo shows expenses arriving
 * rather than dead letters.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CsvExpenseSource,
  csvExpensesConfigSchema,
  dropDemoExpenses,
  expenseFolders,
} from '../../../connectors/csv-expenses/index.js';
import { loadConfig } from '../../../src/config/index.js';
import { buildPluginRegistry } from '../../../src/daemon/plugins/builtin.js';
import { defaultDemoConfigPath } from '../../../src/daemon/start/demo.js';
import {
  buildExpenseBody,
  expenseValueMaps,
  expensesOptionsSchema,
} from '../../../src/flows/expenses/index.js';
import { mulberry32 } from '../../flows/documents/supplier-harness.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('demo expense drops', () => {
  it('are read whole and map to valid expense bodies with the demo config', async () => {
    dir = await mkdtemp(join(tmpdir(), 'demo-expenses-'));
    const random = mulberry32(7);
    const refs: string[] = [];
    for (let n = 0; n < 20; n += 1)
      refs.push(...(await dropDemoExpenses(dir, new Date(Date.UTC(2026, 10, 26, 10, 0, n)), random)));
    const config = csvExpensesConfigSchema.parse({ in_dir: '.', min_age: 0 });
    const expenses = await new CsvExpenseSource(config, expenseFolders(config, dir)).listPendingExpenses();
    expect(expenses.map((expense) => expense.ref).sort()).toEqual([...refs].sort());

    const loaded = loadConfig(defaultDemoConfigPath(), { registry: buildPluginRegistry() });
    const job = loaded.config.jobs['expenses'];
    expect(job?.flow).toBe('expenses');
    const maps = expenseValueMaps(loaded.config.mappings, expensesOptionsSchema.parse(job?.options ?? {}));
    const refused = expenses
      .map((expense) => ({ ref: expense.ref, built: buildExpenseBody(expense, maps) }))
      .filter(({ built }) => !built.ok);
    expect(refused).toEqual([]);
    expect(expenses.filter((expense) => expense.attachmentPaths.length === 1).length).toBeGreaterThan(0);
  });
});
