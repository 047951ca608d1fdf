/**
 * Child process for the sales-push kill -9 test: runs the sales-push job on the parent's drop folder against its
 * sandbox until a run finds no pending file. Instrumented points: before and after each Z-report push, item-sale
 * push and batch mark (see ../mirror/child-points.ts).
 */
import type { ApiClient } from '../../../src/client/index.js';
import type { SalesSource } from '../../../src/connector-contract/index.js';
import { createSalesPushJob } from '../../../src/flows/sales-push/job.js';
import { salesPushOptionsSchema } from '../../../src/flows/sales-push/options.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { csvSalesConfigSchema } from '../../../connectors/csv-sales/config.js';
import { CsvSalesSource, salesFolders } from '../../../connectors/csv-sales/source.js';
import {
  childApiClient,
  childSettings,
  killPoints,
  runUntilQuiet,
  type ChildPointSettings,
} from '../kill9/child-points.js';

export interface SalesChildSettings extends ChildPointSettings {
  baseUrl: string;
  apiKey: string;
  stateFile: string;
  /** The folder the drop folder `pos` lives in. */
  dir: string;
}

const settings = childSettings<SalesChildSettings>('SALES_PUSH_CHILD');
const { around } = killPoints(settings.killAtStep);

const config = csvSalesConfigSchema.parse({ in_dir: 'pos', min_age: 0 });
const real = new CsvSalesSource(config, salesFolders(config, settings.dir));
const source: SalesSource = {
  listPendingSales: () => real.listPendingSales(),
  markSalesBatch: (ref, outcome) => around(() => real.markSalesBatch(ref, outcome)),
};
const client = childApiClient(settings);
const api: ApiClient = {
  ...client,
  sales: {
    ...client.sales,
    pushZReports: (items, options) => around(() => client.sales.pushZReports(items, options)),
    pushItemSales: (items, options) => around(() => client.sales.pushItemSales(items, options)),
  },
};

const state = openStateStore({ file: settings.stateFile, clock: systemClock });
const job = createSalesPushJob({
  name: 'pos-sales',
  api,
  source,
  connectorName: 'pos',
  options: salesPushOptionsSchema.parse({}),
});
await runUntilQuiet(
  job,
  state,
  (result) => (result.counts['batches_done'] ?? 0) + (result.counts['batches_failed'] ?? 0) === 0,
  () => client.close(),
);
