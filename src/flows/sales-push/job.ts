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
import { countHeldBack, countHeldBackFor, tallyOf, type HeldBackReasons } from '../shared/held-back.js';
import type { MissingMapping } from '../../shared/missing-mapping.js';
import { fileRejectedFiles, isRejectedFileKey, type RejectedFileWords } from '../shared/rejected-files.js';
import type { Mappings } from '../../plugin/index.js';
import type { DeadLetter } from '../../state/index.js';
import { BranchResolver } from './branches.js';
import { itemSaleItem, numberLines, zReportItem, type ItemSaleItem, type ZReportItem } from './bodies.js';
import type { SalesPushOptions } from './options.js';
import {
  deadLetterFailure,
  pushItems,
  type PushContext,
  type PushTally,
  type SalesDeadLetter,
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

type BranchMapping = Mappings[string];

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
    missing?: MissingMapping;
  }[];
}

/** Why a branch code could not be resolved, with the mapping entry that would resolve it when a table is named. */
type UnknownBranch = (code: string) => { reason: string; missing?: MissingMapping };

/**
 * With `branch_mapping`, an unknown code is a missing entry of that table: its letter carries it, so that
 * `dead-letters list` and the notifications give the fix (add it, reload, retry the letters: the file was moved to
 * failed_dir, so only a retry sends them). Without one, the reason says where such a table is named.
 */
function unknownBranchOf(input: SalesPushJobInput): UnknownBranch {
  const table = input.options.branch_mapping;
  if (table === undefined) {
    return (code) => ({
      reason:
        `branch code "${code}" is not a branch code or id the API lists; map it in a table under mappings: named ` +
        `by jobs.${input.name}.options.branch_mapping, then \`supply-sync dead-letters retry --flow ${input.name}\``,
    });
  }
  return (code) => ({
    reason: `branch code "${code}" is neither in mappings.${table} nor a branch code or id the API lists`,
    missing: { kind: 'branches', table, key: code, pickup: 'retry' },
  });
}

/** Retried dead letters: API items sent again as stored, and source records whose branch is resolved again. */
interface Replay {
  readonly zReports: readonly ZReportItem[];
  readonly itemSales: readonly ItemSaleItem[];
  readonly unresolvedRecords: SalesBatch;
  /** Keys of the letters behind `unresolvedRecords`. */
  readonly unresolvedKeys: readonly string[];
}

/** What the steps of one run share. */
interface SalesRun {
  readonly input: SalesPushJobInput;
  readonly ctx: JobContext;
  readonly branchMapping: BranchMapping;
  readonly counts: Record<string, number>;
  readonly push: PushContext;
}

export function createSalesPushJob(input: SalesPushJobInput): Job {
  // Checked when the job is built, so a bad config fails the start (and a reload that would remove the table).
  branchMappingOf(input);
  // Read again at each run: a config reload of the mappings applies from the next run on.
  return { name: input.name, run: (ctx) => runSalesPush(input, branchMappingOf(input), ctx) };
}

/** The table `branch_mapping` names; naming one that is not under `mappings:` throws (fails the job's creation). */
function branchMappingOf(input: SalesPushJobInput): BranchMapping {
  const table = input.options.branch_mapping;
  const mapping = table === undefined ? {} : (input.mappings?.[table] ?? null);
  if (mapping === null) {
    throw new Error(`jobs.${input.name}.options.branch_mapping: no table "${table}" under mappings:`);
  }
  return mapping;
}

const SALES_FILES: RejectedFileWords = {
  kind: 'sales',
  fix: 'fix the file (the POS export) to the columns and numbers the connector reads',
};

const SALES_TALLY = {
  delivered: [
    'z_reports_accepted',
    'item_sales_accepted',
    'items_already_sent',
    'z_reports_would_push',
    'item_sales_would_push',
  ],
  heldBack: ['z_reports_failed', 'item_sales_failed', 'items_unresolved', 'files_rejected'],
};

/** The run, with the items it pushed and held back as its tally (the engine's judgeRun decides the outcome). */
async function runSalesPush(
  input: SalesPushJobInput,
  branchMapping: BranchMapping,
  ctx: JobContext,
): Promise<RunResult> {
  const counts: Record<string, number> = {};
  const reasons: HeldBackReasons = {};
  const result = await salesRun(input, branchMapping, ctx, { counts, reasons });
  return { ...result, tally: tallyOf(counts, 'items', SALES_TALLY, reasons) };
}

async function salesRun(
  input: SalesPushJobInput,
  branchMapping: BranchMapping,
  ctx: JobContext,
  held: { readonly counts: Record<string, number>; readonly reasons: HeldBackReasons },
): Promise<RunResult> {
  const { counts } = held;
  const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
  const push: PushContext = {
    state: ctx.state,
    flow: input.name,
    connector: input.connectorName,
    signal: ctx.signal,
    deadlineMs: budget.remainingMs(),
    reasons: held.reasons,
  };
  const run: SalesRun = { input, ctx, branchMapping, counts, push };
  let progress = false;
  try {
    if (!ctx.dryRun) progress = await replayDeadLetters(run);
    const batches = await input.source.listPendingSales({ dryRun: ctx.dryRun });
    fileRejectedFiles(input.name, ctx, input.source.rejectedFiles?.() ?? [], SALES_FILES, held);
    const branches = new BranchResolver(input.api, branchMapping);
    for (const batch of batches) {
      if (budget.stopReason() !== null) return { outcome: progress ? 'partial' : 'skipped', counts };
      const prepared = await prepare(batch, branches, unknownBranchOf(input), ctx.signal);
      if (ctx.dryRun) {
        countWouldPush(counts, prepared);
        continue;
      }
      await pushBatch(run, batch, prepared, budget.remainingMs());
      progress = true;
    }
  } catch (error) {
    const progressed =
      progress || (counts['z_reports_accepted'] ?? 0) + (counts['item_sales_accepted'] ?? 0) > 0;
    // Stopped (Ctrl-C, a shutdown): what was sent is kept, the rest goes with the next run; nothing failed.
    if (ctx.signal.aborted) return { outcome: progressed ? 'partial' : 'skipped', counts };
    ctx.logger.warn({ job: input.name, err: errorMessage(error) }, 'sales-push: run stopped');
    return { outcome: progressed ? 'partial' : 'failed', counts, error: errorMessage(error) };
  }
  return { outcome: 'ok', counts };
}

/** Source records -> API items, each under the branch id its branch code resolves to. */
async function prepare(
  batch: SalesBatch,
  branches: BranchResolver,
  unknown: UnknownBranch,
  signal: AbortSignal,
): Promise<Prepared> {
  const prepared: Prepared = { zReports: [], itemSales: [], unresolved: [] };
  for (const record of batch.zReports) {
    const branchId = await branches.resolve(record.branchCode, signal);
    if (branchId === null) {
      const key = `${record.branchCode}/${record.zNumber}`;
      const why = unknown(record.branchCode);
      prepared.unresolved.push({ kind: 'z_report', key, body: record, unresolved: true, ...why });
    } else prepared.zReports.push(zReportItem(record, branchId));
  }
  for (const record of numberLines(batch.itemSales)) {
    const branchId = await branches.resolve(record.branchCode, signal);
    if (branchId === null) {
      const key = `${record.branchCode}/${record.zNumber}/${record.lineNumber ?? ''}`;
      const why = unknown(record.branchCode);
      prepared.unresolved.push({ kind: 'item_sale', key, body: record, unresolved: true, ...why });
    } else prepared.itemSales.push(itemSaleItem(record, branchId));
  }
  return prepared;
}

function countWouldPush(counts: Record<string, number>, prepared: Prepared): void {
  add(counts, 'z_reports_would_push', prepared.zReports.length);
  add(counts, 'item_sales_would_push', prepared.itemSales.length);
  add(counts, 'items_unresolved', prepared.unresolved.length);
}

/** Pushes one batch and keeps every item's result, then marks the batch done or failed at the source. */
async function pushBatch(
  run: SalesRun,
  batch: SalesBatch,
  prepared: Prepared,
  deadlineMs: number,
): Promise<void> {
  const { input, ctx, counts } = run;
  const batchPush = { ...run.push, deadlineMs };
  // Each push's results are stored as it ends, and counted then: a run stopped after it is partial, not skipped.
  const z = await pushZReports(input.api, batchPush, prepared.zReports, batch.ref);
  tallyInto(counts, 'z_reports', z);
  const items = await pushItemSales(input.api, batchPush, prepared.itemSales, batch.ref);
  tallyInto(counts, 'item_sales', items);
  ctx.state.transaction(() => {
    for (const bad of prepared.unresolved) deadLetterFailure(run.push, bad, batch.ref, bad.reason);
  });
  for (const bad of prepared.unresolved) {
    if (bad.missing === undefined) countHeldBackFor(run.push.reasons, bad.reason);
    else countHeldBack(run.push.reasons ?? {}, bad.missing);
  }
  add(counts, 'items_unresolved', prepared.unresolved.length);
  const failed = z.failed + items.failed + prepared.unresolved.length > 0;
  // Results are stored above; only now may the source forget the batch.
  await input.source.markSalesBatch(batch.ref, failed ? 'failed' : 'done');
  add(counts, failed ? 'batches_failed' : 'batches_done', 1);
}

/** Items an operator queued with `dead-letters retry` are sent again as stored. */
async function replayDeadLetters(run: SalesRun): Promise<boolean> {
  const { input, ctx, counts, push } = run;
  // A rejected file's letter holds no item to send: dropping the fixed file into the folder again sends it.
  const letters = ctx.state.deadLetters
    .list({ flow: input.name, statuses: ['retrying'] })
    .filter((letter) => !isRejectedFileKey(letter.recordKey));
  if (letters.length === 0) return false;
  const replay = planReplay(letters);
  const branches = new BranchResolver(input.api, run.branchMapping);
  const prepared = await prepare(replay.unresolvedRecords, branches, unknownBranchOf(input), ctx.signal);
  const zReports = [...replay.zReports, ...prepared.zReports];
  const itemSales = [...replay.itemSales, ...prepared.itemSales];
  ctx.state.transaction(() => {
    for (const bad of prepared.unresolved) deadLetterFailure(push, bad, null, bad.reason);
  });
  tallyInto(counts, 'z_reports', await pushZReports(input.api, push, zReports, null));
  tallyInto(counts, 'item_sales', await pushItemSales(input.api, push, itemSales, null));
  // Letters filed under a branch code are now sent under the branch id (their results are filed by that key),
  // unless the code is still unknown, in which case they were filed again above.
  const stillUnknown = new Set(prepared.unresolved.map((bad) => bad.key));
  ctx.state.transaction(() => {
    for (const key of replay.unresolvedKeys)
      if (!stillUnknown.has(key)) ctx.state.deadLetters.resolve(input.name, key);
  });
  return true;
}

function planReplay(letters: readonly DeadLetter[]): Replay {
  const zReports: ZReportItem[] = [];
  const itemSales: ItemSaleItem[] = [];
  const zRecords: ZReportRecord[] = [];
  const saleRecords: ItemSaleRecord[] = [];
  const unresolvedKeys: string[] = [];
  for (const letter of letters) {
    const record = letter.record as SalesDeadLetter;
    if (record.unresolved === true) {
      // Stored before its branch was known: resolve again (the mapping may have been fixed), then send.
      unresolvedKeys.push(letter.recordKey);
      if (record.kind === 'z_report') zRecords.push(record.body as ZReportRecord);
      else saleRecords.push(record.body as ItemSaleRecord);
      continue;
    }
    const item = { kind: record.kind, key: letter.recordKey, version: contentHash(record.body) };
    if (record.kind === 'z_report') zReports.push({ ...item, body: record.body as ZReportInputBody });
    else itemSales.push({ ...item, body: record.body as ItemSaleInputBody });
  }
  const unresolvedRecords = { ref: 'dead-letters', zReports: zRecords, itemSales: saleRecords };
  return { zReports, itemSales, unresolvedRecords, unresolvedKeys };
}

function pushZReports(
  api: ApiClient,
  push: PushContext,
  items: readonly ZReportItem[],
  batchRef: string | null,
): Promise<PushTally> {
  return pushItems(push, 'z_report', items, batchRef, (bodies, call) => api.sales.pushZReports(bodies, call));
}

function pushItemSales(
  api: ApiClient,
  push: PushContext,
  items: readonly ItemSaleItem[],
  batchRef: string | null,
): Promise<PushTally> {
  return pushItems(push, 'item_sale', items, batchRef, (bodies, call) =>
    api.sales.pushItemSales(bodies, call),
  );
}

function tallyInto(counts: Record<string, number>, prefix: string, tally: PushTally): void {
  add(counts, `${prefix}_accepted`, tally.accepted);
  add(counts, `${prefix}_failed`, tally.failed);
  add(counts, 'items_already_sent', tally.alreadySent);
  add(counts, 'items_superseded', tally.superseded);
}

function add(counts: Record<string, number>, key: string, n: number): void {
  counts[key] = (counts[key] ?? 0) + n;
}
