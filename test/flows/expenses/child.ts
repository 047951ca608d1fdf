/**
 * Child process for the expenses kill -9 test: runs the expenses job on the parent's back-office database against
 * its sandbox until a run finds nothing pending and nothing failed. Instrumented points: before and after each
 * receipt upload, expense creation and write-back (see ../kill9/child-points.ts).
 */
import type { ExpenseSource } from '../../../src/connector-contract/index.js';
import { createExpensesJob, expensesOptionsSchema } from '../../../src/flows/expenses/index.js';
import type { ExpensesApi } from '../../../src/flows/expenses/api.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import {
  childApiClient,
  childSettings,
  killPoints,
  runUntilQuiet,
  type ChildPointSettings,
} from '../kill9/child-points.js';
import { EXPENSE_MAPPINGS, openBackOffice } from './harness.js';

export interface ExpensesChildSettings extends ChildPointSettings {
  baseUrl: string;
  apiKey: string;
  stateFile: string;
  /** The folder holding back-office.db. */
  dir: string;
}

const settings = childSettings<ExpensesChildSettings>('EXPENSES_CHILD');
const points = killPoints(settings.killAtStep);
/** Names the call before its points, so the parent can tell where each kill landed. */
const around = <T>(call: 'upload' | 'create' | 'mark', run: () => Promise<T>): Promise<T> => {
  process.stdout.write(`call ${call}\n`);
  return points.around(run);
};

const connector = await openBackOffice(settings.dir);
const real = connector.capabilities.expenseSource;
if (real === undefined) throw new Error('the back office offers no expenseSource');
const source: ExpenseSource = {
  listPendingExpenses: () => real.listPendingExpenses(),
  markExpenseSent: (ref, id) => around('mark', () => real.markExpenseSent(ref, id)),
};
const client = childApiClient(settings);
const api: ExpensesApi = {
  files: { upload: (input, options) => around('upload', () => client.files.upload(input, options)) },
  expenses: {
    list: (options) => client.expenses.list(options),
    create: (body, options) => around('create', () => client.expenses.create(body, options)),
  },
};

const state = openStateStore({ file: settings.stateFile, clock: systemClock });
const job = createExpensesJob({
  name: 'expenses',
  api,
  source: () => source,
  options: expensesOptionsSchema.parse({}),
  mappings: EXPENSE_MAPPINGS,
});
await runUntilQuiet(
  job,
  state,
  (result) =>
    (result.counts['expenses_created'] ?? 0) +
      (result.counts['expenses_known'] ?? 0) +
      (result.counts['expenses_failed'] ?? 0) +
      (result.counts['dead_lettered'] ?? 0) ===
    0,
  async () => {
    await client.close();
    await connector.close();
  },
);
