/**
 * A leader process that writes orders into an ERP the way the daemon's order sink does, with the daemon's own
 * parts: the elector, the PostgreSQL state fenced to the term the work began in (runInTerm), the write gate, and
 * the kit's PostgreSQL driver behind the commit gate. For each order the "API" lists (table api_orders) that the
 * state has not recorded, one ERP transaction looks the order up and inserts it when absent (the ERP table has no
 * UNIQUE guard), stays open `holdMs` so a freeze can land inside it, then asks the commit gate and commits; the
 * state records the order after. Work of a term stops at the first refusal. One JSON line per step on stdout.
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
const erp = commitGated(new PgDriver({ url: options.erpUrl, name: 'erp' }), async () => {
  await gate.admit('an ERP commit');
});

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

async function work(term: Term): Promise<void> {
  for (;;) {
    const { rows } = await erp.query('SELECT order_ref FROM api_orders ORDER BY order_ref');
    const todo = rows
      .map((row) => String(row['order_ref']))
      .filter((ref) => !state.kv.get('erp-orders', ref));
    try {
      for (const ref of todo) await writeOrder(ref, term);
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
