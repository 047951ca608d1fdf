/**
 * Real parts for the expenses tests: the sandbox over HTTP, a SQLite state file, and a back-office database the
 * `sql` connector reads expenses from (SQLite, through the same driver a deployed connector uses).
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import type { Connector, ExpenseSource } from '../../../src/connector-contract/index.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';
import type { SqlDriver } from '../../../src/kit/sql/driver.js';
import { sqlConnectorDefinition } from '../../../connectors/sql/index.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** The back office's statements, as an administrator would write them against its own schema. */
export const BACK_OFFICE_STATEMENTS = {
  pending:
    'SELECT id AS ref, vendor, doc_type, doc_number, allocation_number, doc_date, branch, purchase_type, ' +
    'receipt AS attachment_path FROM bo_expenses WHERE api_id IS NULL ORDER BY id',
  lines:
    'SELECT line AS line_number, category, net AS amount_before_vat, vat AS vat_amount, description ' +
    'FROM bo_expense_lines WHERE expense_id = :ref',
  mark_sent: 'UPDATE bo_expenses SET api_id = :api_expense_id, marks = marks + 1 WHERE id = :ref',
};

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS bo_expenses (id TEXT PRIMARY KEY, vendor TEXT NOT NULL, doc_type TEXT NOT NULL,
     doc_number TEXT, allocation_number TEXT, doc_date TEXT NOT NULL, branch TEXT NOT NULL, purchase_type TEXT,
     receipt TEXT, api_id TEXT, marks INTEGER NOT NULL DEFAULT 0)`,
  `CREATE TABLE IF NOT EXISTS bo_expense_lines (expense_id TEXT NOT NULL, line INTEGER NOT NULL,
     category TEXT NOT NULL, net TEXT NOT NULL, vat TEXT, description TEXT)`,
];

/** Source codes -> API values, in the config's direction (API value: source value). */
export const EXPENSE_MAPPINGS = {
  vendors: { ven_electric: 'ELEC', ven_cleaning: 'BRIK', ven_dairy: 'EMEK' },
  expense_categories: {
    cat_utilities: 'UTIL',
    cat_cleaning: 'CLEAN',
    cat_dairy: 'DAIRY',
    cat_misc: 'MISC',
    cat_software: 'SOFT',
  },
  branches: { br_tlv: 'TLV01', br_hrz: 'HRZ02', br_jlm: 'JLM03' },
  purchase_types: { OC: 'OTHER', FC: 'FOOD' },
};

export interface BackOfficeExpense {
  id: string;
  vendor?: string;
  docType?: string;
  docNumber?: string | null;
  allocationNumber?: string | null;
  docDate?: string;
  branch?: string;
  purchaseType?: string | null;
  receipt?: string | null;
  lines: { category: string; net: string; vat?: string; description?: string }[];
}

export interface ExpensesHarness {
  sandbox: Sandbox;
  api: ApiClient;
  dir: string;
  stateFile: string;
  dbFile: string;
  state: StateStore;
  connector: Connector;
  source: ExpenseSource;
  driver: SqlDriver;
  insert(expense: BackOfficeExpense): Promise<void>;
  /** Writes a receipt file into the test folder and returns its path. */
  receipt(name: string, bytes?: number): Promise<string>;
  close(): Promise<void>;
}

export async function openBackOffice(dir: string): Promise<Connector> {
  const connector = await sqlConnectorDefinition.create(
    {
      connection: { driver: 'sqlite', file: 'back-office.db' },
      statements: { expenses: BACK_OFFICE_STATEMENTS },
    },
    { name: 'back-office', baseDir: dir },
  );
  const driver = (connector as unknown as { driver: SqlDriver }).driver;
  for (const statement of SCHEMA) await driver.query(statement);
  return connector;
}

export async function insertExpense(driver: SqlDriver, expense: BackOfficeExpense): Promise<void> {
  await driver.query(
    `INSERT INTO bo_expenses (id, vendor, doc_type, doc_number, allocation_number, doc_date, branch, purchase_type, receipt)
     VALUES (:id, :vendor, :doc_type, :doc_number, :allocation_number, :doc_date, :branch, :purchase_type, :receipt)`,
    {
      id: expense.id,
      vendor: expense.vendor ?? 'ELEC',
      doc_type: expense.docType ?? 'receipt',
      doc_number: expense.docNumber ?? `R-${expense.id}`,
      allocation_number: expense.allocationNumber ?? null,
      doc_date: expense.docDate ?? '2026-11-20',
      branch: expense.branch ?? 'TLV01',
      purchase_type: expense.purchaseType ?? null,
      receipt: expense.receipt ?? null,
    },
  );
  for (const [index, line] of expense.lines.entries()) {
    await driver.query(
      'INSERT INTO bo_expense_lines VALUES (:id, :line, :category, :net, :vat, :description)',
      {
        id: expense.id,
        line: index + 1,
        category: line.category,
        net: line.net,
        vat: line.vat ?? null,
        description: line.description ?? null,
      },
    );
  }
}

export async function startExpensesHarness(): Promise<ExpensesHarness> {
  const sandbox = await startSandbox({ rateLimitOverrides: { all: { per_minute: 100_000 } } });
  const dir = await mkdtemp(join(tmpdir(), 'expenses-'));
  const stateFile = join(dir, 'state.db');
  const api = createApiClient({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.keys.buyer,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50, deadlineMs: 20_000 },
  });
  const connector = await openBackOffice(dir);
  const driver = (connector as unknown as { driver: SqlDriver }).driver;
  const source = connector.capabilities.expenseSource;
  if (source === undefined) throw new Error('the sql connector offers no expenseSource');
  const harness: ExpensesHarness = {
    sandbox,
    api,
    dir,
    stateFile,
    dbFile: join(dir, 'back-office.db'),
    state: openStateStore({ file: stateFile, clock: systemClock }),
    connector,
    source,
    driver,
    insert: (expense) => insertExpense(driver, expense),
    async receipt(name, bytes = 2048) {
      const path = join(dir, name);
      await writeFile(path, Buffer.alloc(bytes, name.length % 251));
      return path;
    },
    async close() {
      harness.state.close();
      await connector.close();
      await api.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

export interface StoredExpense {
  id: string;
  vendor_id: string;
  branch_id: string;
  doc_number: string | null;
  external_ref: string | null;
  purchase_type: string | null;
  totals: { before_vat: string; vat: string; with_vat: string };
  lines: { category_id: string; amount_before_vat: string }[];
  files: { id: string }[];
}

/** The expenses the sandbox holds whose external_ref starts with `prefix`. */
export async function sandboxExpenses(sandbox: Sandbox, prefix = ''): Promise<StoredExpense[]> {
  const readout = await sandbox.control.state();
  return Object.values(readout['expenses'] as Record<string, StoredExpense>).filter((expense) =>
    (expense.external_ref ?? '').startsWith(prefix),
  );
}

export async function sandboxFileCount(sandbox: Sandbox): Promise<number> {
  const readout = await sandbox.control.state();
  const platform = readout['platform'] as { files: { purpose?: string }[] };
  return platform.files.filter((file) => file.purpose === 'expense_attachment').length;
}

export async function writeBack(
  driver: SqlDriver,
): Promise<Map<string, { apiId: string | null; marks: number }>> {
  const { rows } = await driver.query('SELECT id, api_id, marks FROM bo_expenses');
  return new Map(
    (rows as { id: string; api_id: string | null; marks: number }[]).map((row) => [
      row.id,
      { apiId: row.api_id, marks: Number(row.marks) },
    ]),
  );
}
