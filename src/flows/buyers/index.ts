/** The `buyers` flow: linked buyers mapped to ERP customers, and ERP customers invited once. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
import { createBuyersJob } from './job.js';
import { BUYERS_FLOW, BUYERS_SCOPES, BUYERS_TRIGGER_EVENTS, buyersOptionsSchema } from './options.js';

export { createBuyersJob, type BuyersJobInput } from './job.js';
export {
  buyersOptionsSchema,
  BUYERS_FLOW,
  BUYERS_SCOPES,
  BUYERS_TRIGGER_EVENTS,
  type BuyersOptions,
} from './options.js';
export { CustomerMatcher, type MatchResult } from './match.js';
export { linkBuyer } from './link.js';
export { inviteCandidates, inviteCustomer, invitationKey, type InviteOutcome } from './invite.js';

export const buyersFlow = defineFlow({
  flow: BUYERS_FLOW,
  description:
    'Maps linked buyers to ERP customers (customer_number and erp_ref, written with If-Match) and optionally invites ERP customers that are not linked yet',
  side: 'supplier',
  scopes: BUYERS_SCOPES,
  requires: ['customerDirectory'],
  triggerEvents: BUYERS_TRIGGER_EVENTS,
  options: buyersOptionsSchema,
  create(job, deps) {
    const erp = jobConnector(BUYERS_FLOW, job, deps);
    return createBuyersJob({
      name: job.name,
      connectorName: erp.name,
      api: deps.api,
      directory: erp.require('customerDirectory'),
      options: job.options,
      mappings: deps.mappings,
    });
  },
});
