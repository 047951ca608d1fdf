/**
 * A leader process that writes orders into an ERP's OData API the way the daemon does, with the daemon's own parts:
 * the elector, the PostgreSQL state fenced to the term the work began in (runInTerm), the write gate, and the real
 * odata connector (SAP Business One preset) whose writes ask the gate and are cut at its allowance. For each order
 * the "API" lists (table api_orders) that the state has not recorded, it calls the connector's order sink, which
 * finds the order (U_ApiOrderId) before it creates it; the state records the order after. Work of a term stops at
 * the first refusal. One JSON line per step on stdout: started, elected, erp-committed, erp-error, refused, lost.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
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
import { systemClock } from '../../../src/shared/clock.js';
import { openPgStateStore } from '../../../src/state/index.js';
import { odataConfigSchema, odataConnectorDefinition } from '../../../connectors/odata/index.js';
import { blockFor, order } from '../../connectors/odata/fixture.js';

interface ChildOptions {
  readonly url: string;
  /** Where the "API" lists its orders (table api_orders). */
  readonly apiUrl: string;
  /** The OData service root (a relay in front of the emulator). */
  readonly serviceUrl: string;
  readonly instance: string;
  readonly leaseMs: number;
  readonly renewIntervalMs: number;
  readonly pollIntervalMs: number;
  /** The connector's request timeout, far longer than the lease. */
  readonly timeout: string;
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
const connector = await odataConnectorDefinition.create(
  odataConfigSchema.parse(blockFor('sap-b1-service-layer', options.serviceUrl, { timeout: options.timeout })),
  {
    name: 'erp',
    baseDir: '.',
    // As the daemon's environment hands it: the allowance goes to the connector.
    mayCommit: async () => {
      const allowance = await gate.admit('a write of connector erp');
      return allowance === undefined ? undefined : { deadline: allowance.deadline };
    },
  },
);
const sink = connector.capabilities.orderSink;
if (sink === undefined) throw new Error('the odata connector offers no orderSink');
const api = new pg.Pool({ connectionString: options.apiUrl, max: 1 });

async function pass(term: Term): Promise<void> {
  const { rows } = await api.query<{ order_ref: string }>(
    'SELECT order_ref FROM api_orders ORDER BY order_ref',
  );
  for (const { order_ref: ref } of rows) {
    if (state.kv.get('erp-orders', ref)) continue;
    const result = await sink!.writeOrder(order(ref));
    state.kv.set('erp-orders', ref, term.epoch);
    say('erp-committed', { ref, epoch: term.epoch, outcome: result.status });
  }
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
  void elector
    .stop()
    .then(() => connector.close())
    .then(() => api.end())
    .then(() => process.exit(0));
});

await elector.start();
say('started', { status: elector.status() });
