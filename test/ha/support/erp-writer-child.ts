/**
 * A leader process that writes orders into an ERP with the daemon's own parts: the elector, the PostgreSQL state
 * fenced to the term the work began in (runInTerm), the write gate, and the sql connector built from its definition
 * (its order sink, on PostgreSQL, with statements over tables without a UNIQUE guard) whose `mayCommit` asks the
 * write gate, as the daemon wires it. For each order the "API" lists (table api_orders) that the state has not
 * recorded, the order sink's transaction looks the order up and inserts it (header and line) when absent; right
 * before its COMMIT, where the connector asks the commit gate, the transaction is held open `holdMs` so a freeze can
 * land inside it, then the gate decides; the state records the order after. In `journal` mode it writes the journal
 * batches the "API" lists (api_batches) with the sql connector's journal writer into a table without a UNIQUE
 * guard, each batch held open after its first line. Work of a term stops at the first refusal. One JSON line per
 * step on stdout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Term } from '../../../src/ha/index.js';
import { commitGated } from '../../../src/kit/sql/index.js';
import { PgDriver } from '../../../src/kit/sql/pg-driver.js';
import type { SqlDriver } from '../../../src/kit/sql/driver.js';
import type { JournalEntry } from '../../../src/connector-contract/index.js';
import { SqlAccountingWriter } from '../../../connectors/sql/accounting-writer.js';
import { journalTableSchema } from '../../../connectors/sql/journal-config.js';
import { sqlConnectorConfigSchema, sqlConnectorDefinition } from '../../../connectors/sql/sql-connector.js';
import type { ErpOrder, OrderSink } from '../../../src/connector-contract/index.js';
import {
  announcer,
  childOptions,
  fencedState,
  leadInTerms,
  type LeaderChildOptions,
} from './leader-child.js';

interface ChildOptions extends LeaderChildOptions {
  readonly erpUrl: string;
  readonly holdMs: number;
  /** `orders` (the default): one order per transaction; `journal`: one journal batch per transaction. */
  readonly mode?: 'orders' | 'journal';
}

const options = childOptions<ChildOptions>();
const say = announcer(options.instance);
const { settings, state, gate } = fencedState(options);
const mayCommit = async (): Promise<void> => {
  await gate.admit('an ERP commit');
};
/** The "API": the orders and journal batches it lists, read from the ERP database. */
const erp = new PgDriver({ url: options.erpUrl, name: 'api' });
/** The order being written, while the order sink's transaction is open. */
let ordering: { ref: string; epoch: number } | undefined;
/** The sql connector of the daemon: its order sink asks this gate right before each COMMIT. */
const connector = await sqlConnectorDefinition.create(
  sqlConnectorConfigSchema.parse({
    connection: { driver: 'pg', url: options.erpUrl },
    statements: {
      orders: {
        find: 'SELECT erp_number::text AS erp_order_number FROM erp_orders WHERE order_ref = :api_order_id',
        insert_header:
          'INSERT INTO erp_orders (order_ref, customer, written_by) VALUES (:api_order_id, :customer_number, :notes) ' +
          'RETURNING erp_number::text AS erp_order_number',
        insert_line:
          'INSERT INTO erp_order_lines (erp_number, line_no, item, quantity) ' +
          'VALUES (CAST(:erp_order_number AS bigint), :line_number, :item_code, CAST(:quantity AS numeric))',
      },
    },
  }),
  {
    name: 'erp',
    baseDir: process.cwd(),
    // The daemon's wiring (environment-parts.ts), with the transaction held open first so a freeze lands in it.
    mayCommit: async () => {
      if (ordering !== undefined) {
        say('erp-open', ordering);
        await sleep(options.holdMs);
      }
      await gate.admit('a write of connector erp');
    },
  },
);
const orderSink: OrderSink = connector.capabilities.orderSink ?? noOrderSink();

function noOrderSink(): never {
  throw new Error('the sql connector offers no order sink');
}

/** The books: the sql connector's real journal writer over a driver that holds each batch open after its first line. */
let writing: { ref: string; epoch: number } | undefined;
const books = new SqlAccountingWriter(
  commitGated(holdingAfterFirstInsert(new PgDriver({ url: options.erpUrl, name: 'books' })), mayCommit),
  journalTableSchema.parse({
    table: 'books_lines',
    columns: { batch_key: 'batch_key', line_number: 'line_no', account: 'account', amount: 'amount' },
    batch_key_store: 'column',
  }),
  'books',
);

function holdingAfterFirstInsert(driver: SqlDriver): SqlDriver {
  return {
    dialect: driver.dialect,
    query: (sql, params) => driver.query(sql, params),
    describe: (sql) => driver.describe(sql),
    close: () => driver.close(),
    transaction: (work) =>
      driver.transaction((tx) => {
        let held = false;
        return work({
          query: async (sql, params) => {
            const result = await tx.query(sql, params);
            if (!held && /^\s*INSERT INTO/i.test(sql)) {
              held = true;
              say('erp-open', { ...writing });
              await sleep(options.holdMs);
            }
            return result;
          },
        });
      }),
  };
}

async function writeBatch(ref: string, lines: number, term: Term): Promise<void> {
  writing = { ref, epoch: term.epoch };
  const entries = Array.from({ length: lines }, (_, i) => journalEntry(ref, i + 1));
  const result = await books.writeJournalBatch({ batchKey: ref, entries });
  state.kv.set('books-batches', ref, term.epoch);
  say('erp-committed', { ref, epoch: term.epoch, outcome: result.status });
}

function journalEntry(ref: string, lineNumber: number): JournalEntry {
  return {
    lineNumber,
    side: lineNumber % 2 === 1 ? 'debit' : 'credit',
    account: lineNumber % 2 === 1 ? '6100' : '2200',
    counterAccount: null,
    amount: '10.00',
    currency: 'ILS',
    date: '2026-11-26',
    valueDate: '2026-11-26',
    period: '2026-11',
    reference: ref,
    reference2: null,
    branchCode: null,
    movementType: null,
    description: `batch ${ref}`,
    sourceIds: [],
  } as JournalEntry;
}

async function writeOrder(ref: string, term: Term): Promise<void> {
  ordering = { ref, epoch: term.epoch };
  try {
    const result = await orderSink.writeOrder(erpOrder(ref, `${options.instance} epoch ${term.epoch}`));
    state.kv.set('erp-orders', ref, term.epoch);
    say('erp-committed', {
      ref,
      epoch: term.epoch,
      outcome: result.status === 'written' ? 'inserted' : 'found',
      erpNumber: result.erpOrderNumber,
    });
  } finally {
    ordering = undefined;
  }
}

/** The order the "API" lists as `ref`, as the orders flow hands it to the sink: one line. */
function erpOrder(ref: string, writtenBy: string): ErpOrder {
  return {
    apiOrderId: ref,
    orderNumber: ref,
    customerNumber: 'C-100',
    shipTo: null,
    purchaseType: null,
    orderDate: '2026-11-26',
    deliveryDate: '2026-11-27',
    windowFrom: null,
    windowTo: null,
    currency: 'ILS',
    totalBeforeVat: '10.00',
    vat: '1.80',
    totalWithVat: '11.80',
    notes: writtenBy,
    lines: [
      {
        lineNumber: 1,
        apiLineId: `${ref}-1`,
        itemCode: 'ITEM-1',
        description: 'item',
        quantity: '1',
        unit: 'unit',
        unitPrice: '10.00',
        discountPct: null,
        total: '10.00',
        vatExempt: false,
        notes: null,
      },
    ],
  };
}

async function pass(term: Term): Promise<void> {
  if (options.mode === 'journal') {
    const { rows } = await erp.query('SELECT batch_key, lines FROM api_batches ORDER BY batch_key');
    for (const row of rows) {
      const ref = String(row['batch_key']);
      if (!state.kv.get('books-batches', ref)) await writeBatch(ref, Number(row['lines']), term);
    }
    return;
  }
  const { rows } = await erp.query('SELECT order_ref FROM api_orders ORDER BY order_ref');
  const todo = rows.map((row) => String(row['order_ref'])).filter((ref) => !state.kv.get('erp-orders', ref));
  for (const ref of todo) await writeOrder(ref, term);
}

await leadInTerms({
  url: options.url,
  settings,
  say,
  pass,
  pauseMs: 50,
  errorEvent: 'erp-error',
});
