/** The `order-confirm` flow: confirmations and rejections decided in the ERP, sent to the API once. */
import { requireCapability } from '../../connectors/index.js';
import { defineFlow } from '../../daemon/flow-definition.js';
import { requireConnectorName } from '../orders/index.js';
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
  capabilities: ['confirmationSource'],
  triggerEvents: [],
  options: orderConfirmOptionsSchema,
  create(job, deps) {
    const connectorName = requireConnectorName(ORDER_CONFIRM_FLOW, job);
    return createOrderConfirmJob({
      name: job.name,
      connectorName,
      api: deps.api,
      source: requireCapability(deps.connector(connectorName), 'confirmationSource', connectorName),
      options: job.options,
      mappings: deps.mappings,
    });
  },
});
