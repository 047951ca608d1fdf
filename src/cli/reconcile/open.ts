/**
 * Opens what a reconciliation reads, from the config: the journal-export job it checks (its connector and mapping),
 * the connector's read-back, and an API client that refuses every write before it is sent.
 */
import { dirname, resolve } from 'node:path';
import { embeddedSandboxFile, openApi } from '../../api-access/index.js';
import { readOnlyApiClient, type ApiClient } from '../../client/index.js';
import type { LoadedConfig } from '../../config/index.js';
import type { Connector, JournalReadBack } from '../../connector-contract/index.js';
import {
  JOURNAL_EXPORT_FLOW,
  type JournalExportOptions,
  type MappingTables,
} from '../../flows/shared/journal-mapping/index.js';
import type { ApiSide, PluginRegistry } from '../../plugin/index.js';

/** A reconciliation that cannot run as configured or asked: the message names the setting. */
export class ReconcileSetupError extends Error {
  override readonly name = 'ReconcileSetupError';
}

export interface JournalJobChoice {
  readonly job: string;
  readonly connector: string;
  readonly options: JournalExportOptions;
  readonly tables: MappingTables;
}

/** The job of `flow` to reconcile: the one named, or the only one in the config. */
export function jobOfFlow(
  loaded: LoadedConfig,
  flow: string,
  only: string | undefined,
): { readonly job: string; readonly connector: string; readonly options: unknown } {
  const { config, file } = loaded;
  const jobs = Object.entries(config.jobs).filter(([, job]) => job.flow === flow);
  const names = jobs.map(([name]) => name).join(', ') || 'none';
  const chosen =
    only === undefined ? (jobs.length === 1 ? jobs[0] : undefined) : jobs.find(([name]) => name === only);
  if (chosen === undefined) {
    throw new ReconcileSetupError(
      only === undefined
        ? `${file}: reconciling needs one ${flow} job, the config has ${jobs.length} (${names}); name it with --job`
        : `--job ${only} is not a ${flow} job of ${file} (${flow} jobs: ${names})`,
    );
  }
  const [job, block] = chosen;
  if (block.connector === undefined)
    throw new ReconcileSetupError(`${file}: jobs.${job}.connector is not set`);
  // Options as the flow's schema parsed them when the config was loaded.
  return { job, connector: block.connector, options: block.options };
}

/** The journal-export job to reconcile, with its mapping. */
export function journalJob(loaded: LoadedConfig, only: string | undefined): JournalJobChoice {
  const chosen = jobOfFlow(loaded, JOURNAL_EXPORT_FLOW, only);
  return {
    ...chosen,
    options: chosen.options as JournalExportOptions,
    tables: loaded.config.mappings as MappingTables,
  };
}

/** Opens the named connector of the config. */
export async function openConnector(
  loaded: LoadedConfig,
  registry: PluginRegistry,
  name: string,
): Promise<Connector> {
  const block = loaded.config.connectors[name];
  if (block === undefined) throw new ReconcileSetupError(`${loaded.file}: connectors.${name} does not exist`);
  const { type, ...parsed } = block;
  return registry.createParsedConnector(type, parsed, {
    name,
    baseDir: dirname(resolve(loaded.file)),
    configFile: resolve(loaded.file),
  });
}

/** The connector's journal read-back, or an error saying this target cannot be read. */
export function journalReadBack(connector: Connector, name: string): JournalReadBack {
  const readBack = connector.capabilities.accountingWriter?.readBack;
  if (readBack === undefined) {
    throw new ReconcileSetupError(
      `connector ${name} (type ${connector.type}) cannot read its books back, so its journal cannot be reconciled ` +
        '(the sql journal table, csv and hashavshevet targets can)',
    );
  }
  return readBack;
}

export interface ReadOnlyApi {
  readonly api: ApiClient;
  close(): Promise<void>;
}

/** An API client of one side that refuses, before it is sent, any request that would change data. */
export async function openReadOnlyApi(config: LoadedConfig['config'], side: ApiSide): Promise<ReadOnlyApi> {
  const access = await openApi(config, {
    side,
    embeddedSandbox: { statePath: embeddedSandboxFile(config) },
  });
  return {
    api: readOnlyApiClient(access.api, 'reconcile reads only: a request that changes data was stopped'),
    close: () => access.close(),
  };
}
