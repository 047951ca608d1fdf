/**
 * A leader process that runs the real catalog job with the daemon's HA parts: the elector, the PostgreSQL state
 * fenced to the term the work began in (runInTerm), and an API client whose writes pass the daemon's write gate
 * (headroom, attempts cut at the lease). While it leads it runs the job every 100 ms against the demo ERP file and
 * the API at `baseUrl` (a relay in front of the sandbox); the work of a term stops at its first fenced run. One
 * JSON line per event on stdout: elected, run (counts), refused, lost.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createApiClient } from '../../../src/client/index.js';
import { WriteGate } from '../../../src/daemon/services/write-gate.js';
import { createCatalogJob } from '../../../src/flows/catalog/job.js';
import { catalogOptionsSchema } from '../../../src/flows/catalog/options.js';
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
import { SqliteDriver } from '../../../src/kit/sql/sqlite-driver.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openPgStateStore } from '../../../src/state/index.js';
import { SqlCatalogSource } from '../../../connectors/sql/erp-catalog.js';
import { demoErpStatements } from '../../../connectors/sql/demo-erp/statements.js';
import { jobContext } from '../../flows/job-context.js';

interface ChildOptions {
  readonly url: string;
  readonly instance: string;
  readonly leaseMs: number;
  readonly renewIntervalMs: number;
  readonly pollIntervalMs: number;
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly erpFile: string;
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
const client = createApiClient({
  baseUrl: options.baseUrl,
  apiKey: options.apiKey,
  retry: { maxAttempts: 4, baseDelayMs: 10, maxDelayMs: 100, deadlineMs: 20_000 },
  rateLimit: { perMinute: 100_000 },
  beforeWrite: () => gate.admit('an API write'),
});
const statements = demoErpStatements.catalog;
if (statements === undefined) throw new Error('the demo ERP has no catalog statements');
const source = new SqlCatalogSource(new SqliteDriver(options.erpFile), statements, 'erp');
const job = createCatalogJob({
  name: 'catalog',
  api: client,
  source: () => source,
  customers: () => undefined,
  options: catalogOptionsSchema.parse({ price_lists: { 'PL-STD': 'pl_standard' }, max_delete_share: 0.5 }),
});

async function work(term: Term): Promise<void> {
  for (;;) {
    try {
      const result = await job.run(jobContext(state, { budgetMs: 30_000, trigger: 'schedule' }));
      if (result.outcome === 'failed' && /leader|lease|term/i.test(result.error ?? '')) {
        say('refused', { epoch: term.epoch, message: result.error });
        return;
      }
      say('run', { epoch: term.epoch, outcome: result.outcome, counts: result.counts, error: result.error });
    } catch (error) {
      if (error instanceof Error && error.name === 'LeadershipLostError') {
        say('refused', { epoch: term.epoch, message: error.message });
        return;
      }
      say('run-error', {
        epoch: term.epoch,
        message: error instanceof Error ? error.message : String(error),
      });
    }
    await sleep(100);
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
