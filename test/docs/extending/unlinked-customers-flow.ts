/**
 * Worked example of docs/extending.md: a flow, `unlinked-customers`, that compares the ERP's customers (from any
 * connector offering `customerDirectory`) with the buyers linked to the supplier in the API, and counts the
 * customers no buyer is linked to. A real one lives in src/flows/<flow>/.
 */
import * as z from 'zod';
import { defineFlow, jobConnector } from '../../../src/plugin/index.js';

export const unlinkedCustomersOptionsSchema = z.strictObject({
  include_inactive: z
    .boolean()
    .default(false)
    .describe('Count customers whose only linked buyer is inactive as linked'),
});

export const unlinkedCustomersFlow = defineFlow({
  flow: 'unlinked-customers',
  description: 'ERP customers without a linked buyer in the API',
  side: 'supplier',
  scopes: ['supplier.buyers:read'],
  triggerEvents: ['buyer.linked'],
  requires: ['customerDirectory'],
  options: unlinkedCustomersOptionsSchema,
  create(job, deps) {
    const customers = jobConnector('unlinked-customers', job, deps).require('customerDirectory');
    return {
      name: job.name,
      async run(ctx) {
        const linked = new Set<string>();
        for await (const buyer of deps.api.supplierBuyers.list().items()) {
          const counts = job.options.include_inactive || buyer.status === 'active';
          if (counts && buyer.customer_number) linked.add(buyer.customer_number);
        }
        const erp = await customers.listCustomers();
        const unlinked = erp.filter((customer) => !linked.has(customer.customerNumber));
        ctx.logger.info(
          { unlinked: unlinked.map((c) => c.customerNumber) },
          'customers without a linked buyer',
        );
        return { outcome: 'ok', counts: { customers: erp.length, unlinked: unlinked.length } };
      },
    };
  },
});
