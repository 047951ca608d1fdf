/**
 * The sales-push job: each pending sales batch of the source (a query result, a dropped CSV file) is turned into
 * API bodies, pushed (Z-reports first, then item sales; the client splits into 500 and 5000 per call), its
 * per-item results kept, and only then marked done (or failed when an item failed) at the source.
 *
 * Crash safety: a crash after the push and before the mark leaves the batch pending, so the next run reads it
 * again. That is harmless: re-sending the same branch_id + z_number (+ line_number) updates the same records per
 * the contract, and items whose exact version the ledger already holds are not even sent again. Nothing is lost,
 * because the source forgets a batch only after its results are stored.
 */
import type { ApiClient, ItemSaleInputBody, ZReportInputBody } from '../../client/index.js';
import type {
  ItemSaleRecord,
  SalesBatch,
  SalesSource,
  ZReportRecord,
} from '../../connector-contract/index.js';
import {
  contentHash,
  errorMessage,
  RunBudget,
  type Job,
  type JobContext,
  type RunResult,
} from '../../engine/index.js';
import type { Mappings } from '../../plugin/index.js';
import { BranchResolver } from './branches.js';
import {
  itemSaleItem,
  numberLines,
  zReportItem,
  type ItemSaleItem,
  type SalesItem,
  type ZReportItem,
} from './bodies.js';
import type { SalesPushOptions } from './options.js';
import {
  deadLetterFailure,
  pushItems,
  type PushContext,
  type PushTally,
  type SalesDeadLetter,
  type SendBatch,
} from './push.js';

export interface SalesPushJobInput {
  readonly name: string;
  readonly api: ApiClient;
  readonly source: SalesSource;
  /** The source connector's name, for the ledger. */
  readonly connectorName: string;
  /** jobs.<name>.options as salesPushOptionsSchema parsed them. */
  readonly options: SalesPushOptions;
  readonly mappings?: Mappings;
}

interface Prepared {
  zReports: ZReportItem[];
  itemSales: ItemSaleItem[];
  /** Items that could not be sent at all (an unknown branch code). */
  unresolved: {
    kind: 'z_report' | 'item_sale';
    key: string;
    body: unknown;
    unresolved: true;
    reason: string;
  }[];
}

export function createSalesPushJob(input: SalesPushJobInput): Job {
  const { options } = input;
  const mapping =
    options.branch_mapping === undefined ? {} : (input.mappings?.[options.branch_mapping] ?? null);
  if (mapping === null) {
    throw new Error(
      `jobs.${input.name}.options.branch_mapping: no table "${options.branch_mapping}" under mappings:`,
    );
  }

  async function prepare(
    batch: SalesBatch,
    branches: BranchResolver,
    signal: AbortSignal,
  ): Promise<Prepared> {
    const prepared: Prepared = { zReports: [], itemSales: [], unresolved: [] };
    const unknown = (code: string) =>
      `branch code "${code}" is neither in the branch mapping nor a branch code or id the API lists`;
    for (const record of batch.zReports) {
      const branchId = await branches.resolve(record.branchCode, signal);
      if (branchId === null) {
        const key = `${record.branchCode}/${record.zNumber}`;
        const reason = unknown(record.branchCode);
        prepared.unresolved.push({ kind: 'z_report', key, body: record, unresolved: true, reason });
      } else prepared.zReports.push(zReportItem(record, branchId));
    }
    for (const record of numberLines(batch.itemSales)) {
      const branchId = await branches.resolve(record.branchCode, signal);
      if (branchId === null) {
        const key = `${record.branchCode}/${record.zNumber}/${record.lineNumber ?? ''}`;
        const reason = unknown(record.branchCode);
        prepared.unresolved.push({ kind: 'item_sale', key, body: record, unresolved: true, reason });
      } else prepared.itemSales.push(itemSaleItem(record, branchId));
    }
    return prepared;
  }

  async function run(ctx: JobContext): Promise<RunResult> {
    const counts: Record<string, number> = {};
    const add = (key: string, n: number) => {
      counts[key] = (counts[key] ?? 0) + n;
    };
    const tallyInto = (prefix: string, tally: PushTally) => {
      add(`${prefix}_accepted`, tally.accepted);
      add(`${prefix}_failed`, tally.failed);
      add('items_already_sent', tally.alreadySent);
    };
    const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
    const push: PushContext = {
      state: ctx.state,
      flow: input.name,
      connector: input.connectorName,
      signal: ctx.signal,
      deadlineMs: budget.remainingMs(),
    };
    const sendZ: SendBatch<ZReportInputBody> = (bodies, call) => input.api.sales.pushZReports(bodies, call);
    const sendItems: SendBatch<ItemSaleInputBody> = (bodies, call) =>
      input.api.sales.pushItemSales(bodies, call);
    let progress = false;

    try {
      if (!ctx.dryRun)
        progress = (await replayDeadLetters(ctx, push, sendZ, sendItems, tallyInto)) || progress;
      const batches = await input.source.listPendingSales();
      const branches = new BranchResolver(input.api, mapping ?? {});
      for (const batch of batches) {
        if (budget.stopReason() !== null) return { outcome: progress ? 'partial' : 'skipped', counts };
        const prepared = await prepare(batch, branches, ctx.signal);
        if (ctx.dryRun) {
          add('z_reports_would_push', prepared.zReports.length);
          add('item_sales_would_push', prepared.itemSales.length);
          add('items_unresolved', prepared.unresolved.length);
          continue;
        }
        const batchPush = { ...push, deadlineMs: budget.remainingMs() };
        const z = await pushItems(batchPush, 'z_report', prepared.zReports, batch.ref, sendZ);
        const items = await pushItems(batchPush, 'item_sale', prepared.itemSales, batch.ref, sendItems);
        ctx.state.transaction(() => {
          for (const bad of prepared.unresolved) deadLetterFailure(push, bad, batch.ref, bad.reason);
        });
        tallyInto('z_reports', z);
        tallyInto('item_sales', items);
        add('items_unresolved', prepared.unresolved.length);
        const failed = z.failed + items.failed + prepared.unresolved.length > 0;
        // Results are stored above; only now may the source forget the batch.
        await input.source.markSalesBatch(batch.ref, failed ? 'failed' : 'done');
        add(failed ? 'batches_failed' : 'batches_done', 1);
        progress = true;
      }
    } catch (error) {
      ctx.logger.warn({ job: input.name, err: errorMessage(error) }, 'sales-push: run stopped');
      return { outcome: progress ? 'partial' : 'failed', counts, error: errorMessage(error) };
    }
    return { outcome: 'ok', counts };
  }

  /** Items an operator queued with `dead-letters retry` are sent again as stored. */
  async function replayDeadLetters(
    ctx: JobContext,
    push: PushContext,
    sendZ: SendBatch<ZReportInputBody>,
    sendItems: SendBatch<ItemSaleInputBody>,
    tallyInto: (prefix: string, tally: PushTally) => void,
  ): Promise<boolean> {
    const letters = ctx.state.deadLetters.list({ flow: input.name, statuses: ['retrying'] });
    if (letters.length === 0) return false;
    const zReports: SalesItem<ZReportInputBody>[] = [];
    const itemSales: SalesItem<ItemSaleInputBody>[] = [];
    const sourceRecords: SalesBatch = { ref: 'dead-letters', zReports: [], itemSales: [] };
    const unresolvedKeys: string[] = [];
    for (const letter of letters) {
      const record = letter.record as SalesDeadLetter;
      if (record.unresolved === true) {
        // Stored before its branch was known: resolve again (the mapping may have been fixed), then send.
        unresolvedKeys.push(letter.recordKey);
        if (record.kind === 'z_report')
          (sourceRecords.zReports as ZReportRecord[]).push(record.body as ZReportRecord);
        else (sourceRecords.itemSales as ItemSaleRecord[]).push(record.body as ItemSaleRecord);
        continue;
      }
      const item = { kind: record.kind, key: letter.recordKey, version: contentHash(record.body) };
      if (record.kind === 'z_report') zReports.push({ ...item, body: record.body as ZReportInputBody });
      else itemSales.push({ ...item, body: record.body as ItemSaleInputBody });
    }
    const prepared = await prepare(sourceRecords, new BranchResolver(input.api, mapping ?? {}), ctx.signal);
    zReports.push(...prepared.zReports);
    itemSales.push(...prepared.itemSales);
    ctx.state.transaction(() => {
      for (const bad of prepared.unresolved) deadLetterFailure(push, bad, null, bad.reason);
    });
    tallyInto('z_reports', await pushItems(push, 'z_report', zReports, null, sendZ));
    tallyInto('item_sales', await pushItems(push, 'item_sale', itemSales, null, sendItems));
    // Letters filed under a branch code are now sent under the branch id (their results are filed by that key),
    // unless the code is still unknown, in which case they were filed again above.
    const stillUnknown = new Set(prepared.unresolved.map((bad) => bad.key));
    ctx.state.transaction(() => {
      for (const key of unresolvedKeys)
        if (!stillUnknown.has(key)) ctx.state.deadLetters.resolve(input.name, key);
    });
    return true;
  }

  return { name: input.name, run };
}
