/** One reconciliation from the config, for the CLI and the scheduled job alike: open, compare, close. */
import type { LoadedConfig } from '../config/index.js';
import type { PluginRegistry } from '../plugin/index.js';
import { reconcileJournal } from './journal/index.js';
import { journalJob, journalReadBack, openConnector, openReadOnlyApi } from './open.js';
import type { ReconcileReport } from './report.js';
import type { Scope } from './scope.js';

export interface JournalRequest {
  readonly scope: Scope;
  /** The journal-export job whose target and mapping are checked; needed when the config has several. */
  readonly job?: string | undefined;
}

export async function runJournalReconcile(
  loaded: LoadedConfig,
  registry: PluginRegistry,
  request: JournalRequest,
): Promise<ReconcileReport> {
  const choice = journalJob(loaded, request.job);
  const connector = await openConnector(loaded, registry, choice.connector);
  try {
    const readBack = journalReadBack(connector, choice.connector);
    const access = await openReadOnlyApi(loaded.config, 'buyer');
    try {
      return await reconcileJournal({
        api: access.api,
        readBack,
        mapping: { options: choice.options, tables: choice.tables },
        scope: request.scope,
        target: { connector: choice.connector, type: connector.type },
      });
    } finally {
      await access.close();
    }
  } finally {
    await connector.close();
  }
}
