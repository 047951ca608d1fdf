/** The `order-confirm` flow: confirmations and rejections decided in the ERP, sent to the API once. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
import { createOrderConfirmJob } from './job.js';
import { ORDER_CONFIRM_FLOW, ORDER_CONFIRM_SCOPES, orderConfirmOptionsSchema } from './options.js';

export { createOrderConfirmJob, type OrderConfirmJobInput } from './job.js';
export {
  orderConfirmOptionsSchema,
  ORDER_CONFIRM_FLOW,
  ORDER_CONFIRM_SCOPES,
  type OrderConfirmOptions,
} from './options.js';
export { buildRequest, skuOfItem, type ConfirmationRequest } from './request.js';
export { ConfirmationSender, orderShows, sameQuantity, type SendOutcome } from './send.js';

export const orderConfirmFlow = defineFlow({
  flow: ORDER_CONFIRM_FLOW,
  description:
    'Sends order confirmations (full, partial, substitutes) and rejections decided in the ERP to the API, then marks them sent in the ERP',
  side: 'supplier',
  scopes: ORDER_CONFIRM_SCOPES,
  requires: ['confirmationSource'],
  triggerEvents: [],
  options: orderConfirmOptionsSchema,
  create(job, deps) {
    const erp = jobConnector(ORDER_CONFIRM_FLOW, job, deps);
    return createOrderConfirmJob({
      name: job.name,
      connectorName: erp.name,
      api: deps.api,
      source: erp.require('confirmationSource'),
      options: job.options,
      mappings: deps.mappings,
    });
  },
});
