/** The `mirror` flow: buyer API lists copied into SQL tables for BI tools. */
import { requireCapability } from '../../connectors/index.js';
import { defineFlow } from '../../daemon/flow-definition.js';
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
  capabilities: ['mirrorSink'],
  triggerEvents: [],
  options: mirrorOptionsSchema,
  create(job, deps) {
    if (job.connector === undefined || job.connector === '') {
      throw new Error(
        `jobs.${job.name}.connector: the mirror flow needs a sql connector with a mirror: block`,
      );
    }
    return createMirrorJob({
      name: job.name,
      api: deps.api,
      dispatcher: deps.api.dispatcher,
      sink: requireCapability(deps.connector(job.connector), 'mirrorSink', job.connector),
      options: job.options,
    });
  },
});
