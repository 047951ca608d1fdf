/** The `mirror` flow: buyer API lists copied into SQL tables for BI tools. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
import { createMirrorJob } from './job.js';
import { MIRROR_FLOW, MIRROR_SCOPES, mirrorOptionsSchema } from './options.js';

export { createMirrorJob, type MirrorJobInput } from './job.js';
export {
  mirrorOptionsSchema,
  MIRROR_FLOW,
  MIRROR_SCOPES,
  BASE_COLUMNS,
  type MirrorOptions,
  type MirrorOptionsInput,
} from './options.js';
export { MIRROR_RESOURCES, type MirrorResourceName } from './resources.js';
export { streamName, deadLetterFlow } from './pull-stream.js';

export const mirrorFlow = defineFlow({
  flow: MIRROR_FLOW,
  description:
    'Copies buyer API lists (orders, expenses, journal lines, reference data, sales, inventory counts) into SQL tables for BI tools, incrementally, with a bulk-export backfill on the first run',
  side: 'buyer',
  scopes: MIRROR_SCOPES,
  requires: ['mirrorSink'],
  triggerEvents: [],
  options: mirrorOptionsSchema,
  create(job, deps) {
    const database = jobConnector(MIRROR_FLOW, job, deps);
    return createMirrorJob({
      name: job.name,
      api: deps.api,
      dispatcher: deps.api.dispatcher,
      sink: database.require('mirrorSink'),
      options: job.options,
    });
  },
});
