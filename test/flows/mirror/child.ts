/**
 * Child process for the mirror kill -9 test: runs the mirror job (bulk-export backfill, then incremental pulls)
 * against the parent's sandbox into a SQLite file until a run writes no row. Instrumented points: before and after
 * each table upsert and each export job creation (see child-points.ts).
 */
import type { ApiClient } from '../../../src/client/index.js';
import type { MirrorSink } from '../../../src/connector-contract/index.js';
import { createMirrorJob } from '../../../src/flows/mirror/job.js';
import { mirrorOptionsSchema } from '../../../src/flows/mirror/options.js';
import type { MirrorOptionsInput } from '../../../src/flows/mirror/options.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { SqlMirrorSink } from '../../../connectors/sql/mirror-sink.js';
import { SqliteDriver } from '../../../src/kit/sql/sqlite-driver.js';
import {
  childApiClient,
  childSettings,
  killPoints,
  runUntilQuiet,
  type ChildPointSettings,
} from '../kill9/child-points.js';

export interface MirrorChildSettings extends ChildPointSettings {
  baseUrl: string;
  apiKey: string;
  stateFile: string;
  targetFile: string;
  tablePrefix: string;
  options: MirrorOptionsInput;
}

const settings = childSettings<MirrorChildSettings>('MIRROR_CHILD');
const { around } = killPoints(settings.killAtStep);

const driver = new SqliteDriver(settings.targetFile, { name: 'bi' });
const real = new SqlMirrorSink(driver, settings.tablePrefix);
/** Marks the writes of an unfinished backfill, so that the parent can count the kills that hit one. */
function markBackfill(): void {
  const phase = (state.kv.get('mirror-backfill', 'bi-mirror') as { phase?: string } | undefined)?.phase;
  if (phase === undefined || phase === 'exporting') process.stdout.write('backfill write\n');
}
const sink: MirrorSink = {
  ensureTable: (spec) => real.ensureTable(spec),
  upsertRows: (spec, rows) => {
    markBackfill();
    return around(() => real.upsertRows(spec, rows));
  },
};
const client = childApiClient(settings);
const api: ApiClient = {
  ...client,
  exports: {
    ...client.exports,
    create: (body, options) => {
      markBackfill();
      return around(() => client.exports.create(body, options));
    },
  },
};

const state = openStateStore({ file: settings.stateFile, clock: systemClock });
const job = createMirrorJob({
  name: 'bi-mirror',
  api,
  sink,
  options: mirrorOptionsSchema.parse(settings.options),
});
await runUntilQuiet(
  job,
  state,
  (result) => (result.counts['rows_written'] ?? 0) === 0,
  async () => {
    await client.close();
    await driver.close();
  },
);
