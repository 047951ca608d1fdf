/** The `catalog` flow: ERP products, availability, prices and price-list assignments -> the API, changes only. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
import { createCatalogJob } from './job.js';
import { CATALOG_FLOW, CATALOG_SCOPES, CATALOG_TRIGGER_EVENTS, catalogOptionsSchema } from './options.js';

export const catalogFlow = defineFlow({
  flow: CATALOG_FLOW,
  description: 'ERP catalog snapshot -> the API: only changed products, availability and prices',
  side: 'supplier',
  scopes: CATALOG_SCOPES,
  requires: ['catalogSource'],
  optional: ['customerDirectory'],
  triggerEvents: CATALOG_TRIGGER_EVENTS,
  options: catalogOptionsSchema,
  create(job, deps) {
    const erp = jobConnector(CATALOG_FLOW, job, deps);
    return createCatalogJob({
      name: job.name,
      api: deps.api,
      source: () => erp.require('catalogSource'),
      customers: () => erp.offered('customerDirectory'),
      options: job.options,
      mappings: deps.mappings,
    });
  },
});

export { createCatalogJob, priceListResolver, type CatalogJobInput } from './job.js';
export { catalogOptionsSchema, CATALOG_FLOW, CATALOG_SCOPES, CATALOG_TRIGGER_EVENTS } from './options.js';
export type { CatalogOptions, CatalogOptionsInput } from './options.js';
export type { CatalogApi } from './api.js';
export {
  planCatalog,
  deletionGuard,
  type CatalogPlan,
  type CatalogSnapshot,
  type PlanKinds,
} from './plan.js';
export { fingerprint } from './snapshot.js';
