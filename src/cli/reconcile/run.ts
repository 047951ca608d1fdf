/** One reconciliation from the config, for the CLI and the scheduled job alike: open, compare, close. */
import type { LoadedConfig } from '../../config/index.js';
import type { PluginRegistry } from '../../plugin/index.js';
import {
  compareOrders,
  reconcileJournal,
  type ReconcileReport,
  type Scope,
} from '../../flows/reconcile/index.js';
import {
  jobOfFlow,
  journalJob,
  journalReadBack,
  openConnector,
  openReadOnlyApi,
  ReconcileSetupError,
} from './open.js';
import { notExportedYet } from './not-exported.js';

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
    } catch (error) {
      throw notExportedYet(error, loaded.config, choice.job);
    } finally {
      await access.close();
    }
  } finally {
    await connector.close();
  }
}

export interface OrdersRequest {
  /** How far back: orders changed in the API within this many milliseconds. */
  readonly sinceMs: number;
  readonly sinceLabel: string;
  readonly job?: string | undefined;
  /** The ERP number the orders job recorded for an order, from the daemon's state; null when unknown. */
  readonly writtenAs: (job: string, connector: string, orderId: string) => string | null;
  readonly now: number;
}

export async function runOrdersReconcile(
  loaded: LoadedConfig,
  registry: PluginRegistry,
  request: OrdersRequest,
): Promise<ReconcileReport> {
  const choice = jobOfFlow(loaded, 'orders', request.job);
  const options = choice.options as { start_from?: string | null; skip_acknowledged_elsewhere?: boolean };
  const connector = await openConnector(loaded, registry, choice.connector);
  try {
    const sink = connector.capabilities.orderSink;
    if (sink === undefined) {
      throw new ReconcileSetupError(
        `connector ${choice.connector} (type ${connector.type}) offers no orderSink to find orders in`,
      );
    }
    const access = await openReadOnlyApi(loaded.config, 'supplier');
    try {
      const since = new Date(request.now - request.sinceMs).toISOString();
      const compared = await compareOrders(
        access.api,
        sink,
        { since, label: `the last ${request.sinceLabel}` },
        {
          startFrom: options.start_from ?? null,
          skipAcknowledgedElsewhere: options.skip_acknowledged_elsewhere ?? true,
          writtenAs: (orderId) => request.writtenAs(choice.job, choice.connector, orderId),
        },
      );
      return {
        check: 'orders',
        scope: `orders changed since ${since}`,
        target: {
          connector: choice.connector,
          type: connector.type,
          sources: [`${choice.connector} orders`],
        },
        ...compared,
      };
    } finally {
      await access.close();
    }
  } finally {
    await connector.close();
  }
}
