/** Builds the job from a loaded config: the job block, the `mappings:` tables and the live accounting connector. */
import type { Connector } from '../../connectors/connector.js';
import { requireCapability } from '../../connectors/connector.js';
import type { Job } from '../../engine/index.js';
import type { JournalExportApi } from './api.js';
import { createJournalExportJob } from './job.js';
import type { MappingTables } from './mapping.js';
import type { JournalExportOptionsInput } from './options.js';

export interface JournalExportFromConfig {
  readonly name: string;
  /** jobs.<name> of the config (its `connector` names the accounting connector). */
  readonly job: {
    readonly connector?: string | undefined;
    readonly options?: Readonly<Record<string, unknown>>;
  };
  readonly mappings: MappingTables;
  readonly api: JournalExportApi;
  /** Returns the live connector of that name. */
  readonly connector: (name: string) => Connector;
}

export function journalExportJobFromConfig(input: JournalExportFromConfig): Job {
  const connectorName = input.job.connector;
  if (connectorName === undefined) {
    throw new Error(
      `jobs.${input.name}.connector: name the accounting connector the journal export writes to`,
    );
  }
  const writer = requireCapability(input.connector(connectorName), 'accountingWriter', connectorName);
  return createJournalExportJob({
    name: input.name,
    api: input.api,
    writer,
    options: (input.job.options ?? {}) as JournalExportOptionsInput,
    mappings: input.mappings,
    connectorName,
  });
}
