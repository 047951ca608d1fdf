/** The `sales-push` flow: POS Z-reports and item sales from a connector (SQL or a CSV drop folder) to the API. */
import { requireCapability } from '../../connectors/index.js';
import { defineFlow } from '../../daemon/flow-definition.js';
import { createSalesPushJob } from './job.js';
import { SALES_PUSH_FLOW, SALES_PUSH_SCOPES, salesPushOptionsSchema } from './options.js';

export { createSalesPushJob, type SalesPushJobInput } from './job.js';
export {
  salesPushOptionsSchema,
  SALES_PUSH_FLOW,
  SALES_PUSH_SCOPES,
  type SalesPushOptions,
  type SalesPushOptionsInput,
} from './options.js';
export { money, itemSaleItem, numberLines, zReportItem, type SalesItem, type SalesKind } from './bodies.js';
export type { SalesDeadLetter } from './push.js';

export const salesPushFlow = defineFlow({
  flow: SALES_PUSH_FLOW,
  description:
    'Pushes POS Z-reports and item sales from a connector (SQL statements or a CSV drop folder) to the API, keeping each item result and dead-lettering failed items',
  side: 'buyer',
  scopes: SALES_PUSH_SCOPES,
  capabilities: ['salesSource'],
  triggerEvents: [],
  options: salesPushOptionsSchema,
  create(job, deps) {
    if (job.connector === undefined || job.connector === '') {
      throw new Error(
        `jobs.${job.name}.connector: the sales-push flow needs a sales source (a sql connector with sales statements, or csv-sales)`,
      );
    }
    return createSalesPushJob({
      name: job.name,
      api: deps.api,
      source: requireCapability(deps.connector(job.connector), 'salesSource', job.connector),
      connectorName: job.connector,
      options: job.options,
      mappings: deps.mappings,
    });
  },
});
