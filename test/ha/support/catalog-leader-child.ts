/**
 * A leader process that runs the real catalog job with the daemon's HA parts: the elector, the PostgreSQL state
 * fenced to the term the work began in (runInTerm), and an API client whose writes pass the daemon's write gate
 * (headroom, attempts cut at the lease). While it leads it runs the job every 100 ms against the demo ERP file and
 * the API at `baseUrl` (a relay in front of the sandbox); the work of a term stops at its first fenced run. One
 * JSON line per event on stdout: elected, run (counts), refused, lost.
 */
import { createApiClient } from '../../../src/client/index.js';
import { createCatalogJob } from '../../../src/flows/catalog/job.js';
import { catalogOptionsSchema } from '../../../src/flows/catalog/options.js';
import { LeadershipLostError, type Term } from '../../../src/ha/index.js';
import { SqliteDriver } from '../../../src/kit/sql/sqlite-driver.js';
import { SqlCatalogSource } from '../../../connectors/sql/erp-catalog.js';
import { demoErpStatements } from '../../../connectors/sql/demo-erp/statements.js';
import { jobContext } from '../../flows/job-context.js';
import {
  announcer,
  childOptions,
  fencedState,
  leadInTerms,
  type LeaderChildOptions,
} from './leader-child.js';

interface ChildOptions extends LeaderChildOptions {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly erpFile: string;
}

const options = childOptions<ChildOptions>();
const say = announcer(options.instance);
const { settings, state, gate } = fencedState(options);
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

/** One run of the job; a run the fence failed ends the term's work as a refusal. */
async function pass(term: Term): Promise<void> {
  const result = await job.run(jobContext(state, { budgetMs: 30_000, trigger: 'schedule' }));
  if (result.outcome === 'failed' && /leader|lease|term/i.test(result.error ?? '')) {
    throw new LeadershipLostError('not_leader', result.error ?? 'refused', null);
  }
  say('run', { epoch: term.epoch, outcome: result.outcome, counts: result.counts, error: result.error });
}

await leadInTerms({ url: options.url, settings, say, pass, pauseMs: 100, errorEvent: 'run-error' });
