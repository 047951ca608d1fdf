/** The `orders` flow: buyers' orders from the API into the ERP, acknowledged with the ERP's order number. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
import { createOrdersJob } from './job.js';
import { ORDERS_FLOW, ORDERS_SCOPES, ORDERS_TRIGGER_EVENTS, ordersOptionsSchema } from './options.js';

export { createOrdersJob, ordersStream, type OrdersJobInput } from './job.js';
export {
  ordersOptionsSchema,
  ORDERS_FLOW,
  ORDERS_SCOPES,
  ORDERS_TRIGGER_EVENTS,
  type OrdersOptions,
  type OrdersOptionsInput,
} from './options.js';
export { OrderMapper, type MappingResult, type BuyerErpRefLookup } from './mapping.js';

export const ordersFlow = defineFlow({
  flow: ORDERS_FLOW,
  description:
    'Pulls new and changed orders from /supplier/orders, writes them to the ERP exactly once, applies updates and cancellations, and acknowledges each with the ERP order number',
  side: 'supplier',
  scopes: ORDERS_SCOPES,
  requires: ['orderSink'],
  triggerEvents: ORDERS_TRIGGER_EVENTS,
  options: ordersOptionsSchema,
  create(job, deps) {
    const erp = jobConnector(ORDERS_FLOW, job, deps);
    if (deps.mappings[job.options.ship_to_mapping] === undefined) {
      deps.logger.warn(
        { job: job.name },
        `mappings.${job.options.ship_to_mapping} is not configured: orders reach the ERP with the API branch id as ship-to`,
      );
    }
    return createOrdersJob({
      name: job.name,
      connectorName: erp.name,
      api: deps.api,
      sink: erp.require('orderSink'),
      options: job.options,
      mappings: deps.mappings,
    });
  },
});
