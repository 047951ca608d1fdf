/** A domain with no resources: lets the platform run (and be tested) on its own. */
import type { CreateDomain } from '../http/types.js';

export const createEmptyDomain: CreateDomain = () => ({
  routes: [],
  snapshot: () => ({}),
  restore: () => undefined,
  reset: () => undefined,
  actions: {},
  readout: () => ({}),
  exportRows: () => [],
});
