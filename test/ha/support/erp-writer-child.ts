/**
 * A leader process that writes orders into an ERP the way the daemon's order sink does, with the daemon's own
 * parts: the elector, the PostgreSQL state fenced to the term the work began in (runInTerm), the write gate, and
 * the kit's PostgreSQL driver behind the commit gate. For each order the "API" lists (table api_orders) that the
 * state has not recorded, one ERP transaction looks the order up and inserts it when absent (the ERP table has no
 * UNIQUE guard), stays open `holdMs` so a freeze can land inside it, then asks the commit gate and commits; the
 * state records the order after. In `journal` mode it writes the journal batches the "API" lists (api_batches)
 * with the sql connector's journal writer into a table without a UNIQUE guard, each batch held open after its first
 * line. Work of a term stops at the first refusal. One JSON line per step on stdout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { WriteGate } from '../../../src/daemon/services/write-gate.js';
import {
  boundTerm,
  defaultWriteTimeoutMs,
  Elector,
  fencedSessionSettings,
  LeadershipLostError,
  runInTerm,
  termFence,
  writeMarginMs,
  type HaSettings,
  type Term,
} from '../../../src/ha/index.js';
import { commitGated } from '../../../src/kit/sql/index.js';
import { PgDriver } from '../../../src/kit/sql/pg-driver.js';
import type { SqlDriver } from '../../../src/kit/sql/driver.js';
import type { JournalEntry } from '../../../src/connector-contract/index.js';
import { SqlAccountingWriter } from '../../../connectors/sql/accounting-writer.js';
import { journalTableSchema } from '../../../connectors/sql/journal-config.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openPgStateStore } from '../../../src/state/index.js';

interface ChildOptions {
  readonly url: string;
  readonly erpUrl: string;
  readonly instance: string;
  readonly leaseMs: number;
  readonly renewIntervalMs: number;
  readonly pollIntervalMs: number;
  readonly holdMs: number;
  /** `orders` (the default): one order per transaction; `journal`: one journal batch per transaction. */
  readonly mode?: 'orders' | 'journal';
}

const options = JSON.parse(process.argv[2] ?? '{}') as ChildOptions;

function say(event: string, fields: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ event, instance: options.instance, ...fields })}\n`);
}

const settings: HaSettings = {
  instance: options.instance,
  leaseMs: options.leaseMs,
  renewIntervalMs: options.renewIntervalMs,
  pollIntervalMs: options.pollIntervalMs,
  writeTimeoutMs: defaultWriteTimeoutMs(options.leaseMs),
  writeMarginMs: writeMarginMs(options.leaseMs),
};
const session = fencedSessionSettings(options.leaseMs);
const state = openPgStateStore({
  url: options.url,
  clock: systemClock,
  idleInTransactionTimeoutMs: session.idle_in_transaction_session_timeout,
  statementTimeoutMs: session.statement_timeout,
  lockTimeoutMs: session.lock_timeout,
});
state.setFence({
  check: (port) => {
    const term = boundTerm();
    if (term === undefined) throw new LeadershipLostError('not_leader', 'work bound to no term', null);
    return termFence(term).check(port);
  },
});
const gate = new WriteGate(state, settings);
const mayCommit = async (): Promise<void> => {
  await gate.admit('an ERP commit');
};
const erp = commitGated(new PgDriver({ url: options.erpUrl, name: 'erp' }), mayCommit);
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
  const outcome = await erp.transaction(async (tx) => {
    const found = await tx.query('SELECT 1 FROM erp_orders WHERE order_ref = :ref', { ref });
    if (found.rows.length > 0) return 'found';
    await tx.query('INSERT INTO erp_orders (order_ref, instance, epoch) VALUES (:ref, :instance, :epoch)', {
      ref,
      instance: options.instance,
      epoch: term.epoch,
    });
    say('erp-open', { ref, epoch: term.epoch });
    await sleep(options.holdMs);
    return 'inserted';
  });
  state.kv.set('erp-orders', ref, term.epoch);
  say('erp-committed', { ref, epoch: term.epoch, outcome });
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

async function work(term: Term): Promise<void> {
  for (;;) {
    try {
      await pass(term);
    } catch (error) {
      if (error instanceof Error && error.name === 'LeadershipLostError') {
        say('refused', { epoch: term.epoch, message: error.message });
        return;
      }
      say('erp-error', {
        epoch: term.epoch,
        message: error instanceof Error ? error.message : String(error),
      });
    }
    await sleep(50);
  }
}

const elector = new Elector({
  url: options.url,
  settings,
  onElected: (epoch) => {
    say('elected', { epoch });
    const term = elector.term();
    if (term !== null) runInTerm(term, () => void work(term));
  },
  onLost: (reason) => say('lost', { reason }),
});

process.on('SIGTERM', () => {
  void elector.stop().then(() => process.exit(0));
});

await elector.start();
say('started', { status: elector.status() });
