/**
 * A leader process that writes orders or journal batches into an ERP database with the daemon's own parts: the
 * elector, the PostgreSQL state fenced to the term the work began in (runInTerm), the write gate, and the sql
 * connector opened from a config file's text by the daemon's own `openConnectors`, which wires each connector's commit gate
 * to the write gate. Nothing here wires the gate: if the daemon stopped passing it, the connector would commit
 * freely and the test would see the frozen leader's write land late.
 *
 * For each order the "API" lists (table api_orders) that the state has not recorded, the connector's order sink
 * looks the order up and inserts it (header and line) in one transaction; in `journal` mode the connector's
 * accounting writer writes each batch the "API" lists (api_batches). The ERP database itself is slow to write (a
 * trigger the test installs sleeps after the first row of each write), so a freeze can land between the write and
 * its commit; the commit then asks the daemon's gate. The state records the item after. Work of a term stops at the
 * first refusal. One JSON line per step on stdout: started, elected, erp-writing, erp-committed, erp-error, refused,
 * lost.
 */
import type { Term } from '../../../src/ha/index.js';
import { PgDriver } from '../../../src/kit/sql/pg-driver.js';
import type { ErpOrder, JournalEntry } from '../../../src/connector-contract/index.js';
import {
  announcer,
  childOptions,
  daemonConnector,
  fencedState,
  leadInTerms,
  type LeaderChildOptions,
} from './leader-child.js';

interface ChildOptions extends LeaderChildOptions {
  readonly erpUrl: string;
  /** `orders` (the default): one order per transaction; `journal`: one journal batch per transaction. */
  readonly mode?: 'orders' | 'journal';
}

const options = childOptions<ChildOptions>();
const say = announcer(options.instance);
const { settings, state, gate } = fencedState(options);

/** The connector block as an operator writes it: the ERP's order statements and its journal table. */
const erpConnector = await daemonConnector(
  {
    type: 'sql',
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
    journal: {
      table: 'books_lines',
      columns: { batch_key: 'batch_key', line_number: 'line_no', account: 'account', amount: 'amount' },
      batch_key_store: 'column',
    },
  },
  gate,
);
const { orderSink, accountingWriter } = erpConnector.connector.capabilities;
if (orderSink === undefined || accountingWriter === undefined) {
  throw new Error('the sql connector offers no order sink or no accounting writer');
}
/** The "API": the orders and journal batches it lists, read from the ERP database. */
const api = new PgDriver({ url: options.erpUrl, name: 'api' });

async function writeBatch(ref: string, lines: number, term: Term): Promise<void> {
  say('erp-writing', { ref, epoch: term.epoch });
  const entries = Array.from({ length: lines }, (_, i) => journalEntry(ref, i + 1));
  const result = await accountingWriter!.writeJournalBatch({ batchKey: ref, entries });
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
  say('erp-writing', { ref, epoch: term.epoch });
  const result = await orderSink!.writeOrder(erpOrder(ref, `${options.instance} epoch ${term.epoch}`));
  state.kv.set('erp-orders', ref, term.epoch);
  say('erp-committed', {
    ref,
    epoch: term.epoch,
    outcome: result.status === 'written' ? 'inserted' : 'found',
    erpNumber: result.erpOrderNumber,
  });
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
    const { rows } = await api.query('SELECT batch_key, lines FROM api_batches ORDER BY batch_key');
    for (const row of rows) {
      const ref = String(row['batch_key']);
      if (!state.kv.get('books-batches', ref)) await writeBatch(ref, Number(row['lines']), term);
    }
    return;
  }
  const { rows } = await api.query('SELECT order_ref FROM api_orders ORDER BY order_ref');
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
  onStop: async () => {
    await erpConnector.close();
    await api.close();
  },
});
