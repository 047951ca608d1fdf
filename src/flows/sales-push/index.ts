/** The `sales-push` flow: POS Z-reports and item sales from a connector (SQL or a CSV drop folder) to the API. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
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
  requires: ['salesSource'],
  triggerEvents: [],
  options: salesPushOptionsSchema,
  create(job, deps) {
    const pos = jobConnector(SALES_PUSH_FLOW, job, deps);
    return createSalesPushJob({
      name: job.name,
      api: deps.api,
      source: pos.require('salesSource'),
      connectorName: pos.name,
      options: job.options,
      mappings: deps.mappings,
    });
  },
});
