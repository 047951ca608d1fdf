/** Every benchmark, in the order `npm run bench` runs them. */
import { sandboxServe } from './sandbox-serve.js';
import { webhookIngest } from './webhook-ingest.js';
import { webhookDaemon } from './webhook-daemon.js';
import { catalog } from './catalog.js';
import { pull } from './pull.js';
import { rateLimit } from './rate-limit.js';
import { journalExport } from './journal-export.js';
import { latency } from './latency.js';
import { stateBackends } from './state-backends.js';
import { failover } from './failover.js';
import { failoverDaemon } from './failover-daemon.js';
import { controlApi } from './control-api.js';
import { office } from './office.js';
import { officeNight } from './office-night.js';
import { officePostgres } from './office-postgres.js';
import type { Benchmark } from './lib/types.js';

export const benchmarks: readonly Benchmark[] = [
  sandboxServe,
  webhookIngest,
  webhookDaemon,
  pull,
  journalExport,
  catalog,
  rateLimit,
  latency,
  stateBackends,
  failover,
  failoverDaemon,
  controlApi,
  office,
  officeNight,
  officePostgres,
];
