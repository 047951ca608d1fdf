/**
 * A leader process that writes orders into an ERP's OData API the way the daemon does, with the daemon's own parts:
 * the elector, the PostgreSQL state fenced to the term the work began in (runInTerm), the write gate, and the real
 * odata connector (SAP Business One preset) opened by the daemon's own `openConnectors`, which wires its writes to
 * ask the gate and be cut at its allowance (this process wires nothing itself). For each order
 * the "API" lists (table api_orders) that the state has not recorded, it calls the connector's order sink, which
 * finds the order (U_ApiOrderId) before it creates it; the state records the order after. Work of a term stops at
 * the first refusal. One JSON line per step on stdout: started, elected, erp-committed, erp-error, refused, lost.
 */
import pg from 'pg';
import type { Term } from '../../../src/ha/index.js';
import { blockFor, order } from '../../connectors/odata/fixture.js';
import {
  announcer,
  childOptions,
  daemonConnector,
  fencedState,
  leadInTerms,
  type LeaderChildOptions,
} from './leader-child.js';

interface ChildOptions extends LeaderChildOptions {
  /** Where the "API" lists its orders (table api_orders). */
  readonly apiUrl: string;
  /** The OData service root (a relay in front of the emulator). */
  readonly serviceUrl: string;
  /** The connector's request timeout, far longer than the lease. */
  readonly timeout: string;
}

const options = childOptions<ChildOptions>();
const say = announcer(options.instance);
const { settings, state, gate } = fencedState(options);
// Opened by the daemon's own openConnectors, which hands the write gate's allowance to the connector.
const erp = await daemonConnector(
  { type: 'odata', ...blockFor('sap-b1-service-layer', options.serviceUrl, { timeout: options.timeout }) },
  gate,
);
const { connector } = erp;
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

await leadInTerms({
  url: options.url,
  settings,
  say,
  pass,
  pauseMs: 50,
  errorEvent: 'erp-error',
  onStop: async () => {
    await erp.close();
    await api.end();
  },
});
