/**
 * The orders job: an incremental pull of /supplier/orders whose delivery step writes each new order version to
 * the ERP and acknowledges it. Dead letters queued for retry are re-read from the API first, so a retry acts on
 * the order as it is now, with the mappings as they are now.
 */
import type { ApiClient } from '../../client/index.js';
import type { OrderSink } from '../../connector-contract/index.js';
import type { Order } from '../../contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import {
  pullIncremental,
  RunBudget,
  type Job,
  type JobContext,
  type PullResult,
  type RecordFailure,
  type RunResult,
} from '../../engine/index.js';
import { isNotFound, RecordProblem, recordFailureReason } from '../shared/failures.js';
import { countHeldBack, type HeldBackReasons } from '../shared/held-back.js';
import { OrderBook } from './order-book.js';
import { identifyListedOrder, isStaleCursorError, orderPageSource, type ListedOrder } from './listing.js';
import { OrderMapper } from './mapping.js';
import type { OrdersOptions } from './options.js';
import { OrderProcessor, type OrderPreview } from './process.js';

export interface OrdersJobInput {
  name: string;
  connectorName: string;
  api: Pick<ApiClient, 'orders' | 'supplierBuyers'>;
  sink: OrderSink;
  options: OrdersOptions;
  mappings: Mappings;
}

/** A dry run reads at most this many pages. */
const DRY_RUN_MAX_PAGES = 20;
/** Dead-letter reasons a dry run names in its result (every one is logged). */
const DRY_RUN_REASONS_SHOWN = 5;

export function ordersStream(jobName: string): string {
  return `${jobName}:/supplier/orders`;
}

export function createOrdersJob(input: OrdersJobInput): Job {
  return {
    name: input.name,
    run: (ctx) => runOrders(input, ctx),
  };
}

function erpRefLookup(
  input: OrdersJobInput,
  signal: AbortSignal,
): (buyerId: string) => Promise<string | null> {
  const cache = new Map<string, Promise<string | null>>();
  return (buyerId) => {
    let pending = cache.get(buyerId);
    if (pending === undefined) {
      pending = input.api.supplierBuyers.get(buyerId, { signal }).then(
        (buyer) => buyer.erp_ref ?? null,
        (error: unknown) => {
          if (isNotFound(error)) return null;
          cache.delete(buyerId);
          throw error;
        },
      );
      cache.set(buyerId, pending);
    }
    return pending;
  };
}

/** What the delivery of one run's orders shares. */
interface OrdersRun {
  readonly input: OrdersJobInput;
  readonly ctx: JobContext;
  readonly processor: OrderProcessor;
  /** The listed items as fetched in this run; any other is an operator's retry of a dead letter. */
  readonly fetched: WeakSet<object>;
  readonly counts: Record<string, number>;
  /** Orders held back for a missing mapping, by that mapping. */
  readonly held: HeldBackReasons;
}

async function runOrders(input: OrdersJobInput, ctx: JobContext): Promise<RunResult> {
  const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
  const fetched = new WeakSet<object>();
  const mapper = new OrderMapper(input.options, input.mappings, erpRefLookup(input, ctx.signal));
  const counts: Record<string, number> = {};
  const processor = new OrderProcessor({
    api: input.api,
    sink: input.sink,
    book: new OrderBook(ctx.state, input.name, input.connectorName),
    mapper,
    options: input.options,
  });
  if (ctx.dryRun) return dryRun(input, ctx, processor, fetched, counts);
  const run: OrdersRun = { input, ctx, processor, fetched, counts, held: {} };
  const result = await pullIncremental<ListedOrder>({
    state: ctx.state,
    stream: ordersStream(input.name),
    flow: input.name,
    fetchPage: orderPageSource(input.api, input.options.page_size, fetched),
    identify: identifyListedOrder,
    deliver: (items, signal) => deliverOrders(run, items, signal),
    overlapMs: input.options.overlap_ms,
    budget,
    isStaleCursorError,
    // A webhook announced a change: write it before re-reading the look-back window.
    headFirst: ctx.trigger === 'webhook',
    ...(ctx.errorThreshold === undefined ? {} : { errorThreshold: ctx.errorThreshold }),
  });
  return judged(result, run);
}

/** Writes each order to the ERP and acknowledges it; the ones that fail are returned to become dead letters. */
async function deliverOrders(
  run: OrdersRun,
  items: readonly ListedOrder[],
  signal: AbortSignal,
): Promise<RecordFailure<ListedOrder>[]> {
  const { input, ctx, processor, fetched, counts } = run;
  const failures: RecordFailure<ListedOrder>[] = [];
  for (const item of items) {
    if (signal.aborted) throw signal.reason;
    try {
      const order = await currentOrder(run, item, signal);
      const result = await processor.process(order, signal, !fetched.has(item));
      bump(counts, result.outcome);
      if (result.acknowledged) bump(counts, 'acknowledged');
    } catch (error) {
      const reason = recordFailureReason(error, signal);
      ctx.logger.warn({ job: input.name, reason }, 'order filed as a dead letter');
      const missing = error instanceof RecordProblem ? error.missing : undefined;
      countHeldBack(run.held, missing);
      failures.push(missing === undefined ? { item, reason } : { item, reason, missing });
    }
  }
  return failures;
}

/** The order to act on: the listed one, or for an operator's retry the order as the API has it now. */
async function currentOrder(run: OrdersRun, item: ListedOrder, signal: AbortSignal): Promise<Order> {
  if (run.fetched.has(item)) {
    if (item.kind === 'order') return item.order;
    throw new RecordProblem(`the API sent an order that does not match the contract: ${item.reason}`);
  }
  const id = identifyListedOrder(item).id;
  try {
    return await run.input.api.orders.get(id, { signal });
  } catch (error) {
    if (isNotFound(error)) throw new RecordProblem(`order ${id} no longer exists in the API`);
    throw error;
  }
}

/**
 * The pull's result with the orders the run tried to write as its tally: orders the flow leaves alone (drafts, orders
 * not sent to us) were no work, so a run where every write failed is never "ok" (the engine's judgeRun).
 */
function judged(result: PullResult, run: OrdersRun): RunResult {
  const { counts, held } = run;
  const delivered = Math.max(0, result.counts['delivered'] - (counts['skipped'] ?? 0));
  return {
    outcome: result.outcome,
    counts: { ...result.counts, ...counts },
    tally: { unit: 'orders', delivered, heldBack: result.counts['deadLettered'], reasons: held },
    ...(result.error === undefined ? {} : { error: result.error }),
  };
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}

/** Reads the pending pass and reports what a real run would write or dead-letter; writes nothing anywhere. */
async function dryRun(
  input: OrdersJobInput,
  ctx: JobContext,
  processor: OrderProcessor,
  fetched: WeakSet<object>,
  counts: Record<string, number>,
): Promise<RunResult> {
  const fetchPage = orderPageSource(input.api, input.options.page_size, fetched);
  const watermarkMs = ctx.state.cursors.get(ordersStream(input.name))?.watermarkMs ?? null;
  const since = watermarkMs === null ? null : new Date(watermarkMs - input.options.overlap_ms).toISOString();
  let cursor: string | null = null;
  const failures: string[] = [];
  for (let pages = 0; pages < DRY_RUN_MAX_PAGES && !ctx.signal.aborted; pages += 1) {
    const page = await fetchPage({ cursor, updatedSince: since }, ctx.signal);
    for (const item of page.items) {
      const preview: OrderPreview =
        item.kind === 'order'
          ? await processor.preview(item.order)
          : {
              verdict: 'would_dead_letter',
              reason: `the API sent an order that does not match the contract: ${item.reason}`,
            };
      counts[preview.verdict] = (counts[preview.verdict] ?? 0) + 1;
      if (preview.verdict === 'would_dead_letter') {
        const order = identifyListedOrder(item).id;
        const number = item.kind === 'order' ? item.order.number : null;
        const named = number === null ? order : `${number} (${order})`;
        const reason = preview.reason ?? 'unknown';
        ctx.logger.warn(
          { job: input.name, order, number, reason },
          'dry run: this order would become a dead letter',
        );
        if (failures.length < DRY_RUN_REASONS_SHOWN) failures.push(`order ${named}: ${reason}`);
      }
    }
    if (!page.hasMore || page.nextCursor === null) break;
    cursor = page.nextCursor;
  }
  const failed = counts['would_dead_letter'] ?? 0;
  const tally = { unit: 'orders', delivered: counts['would_write'] ?? 0, heldBack: failed };
  if (failed === 0) return { outcome: 'ok', counts, tally };
  const more = failed > failures.length ? `; and ${failed - failures.length} more` : '';
  return {
    outcome: 'ok',
    counts,
    tally,
    error: `${failed} order${failed === 1 ? '' : 's'} would become dead letters: ${failures.join('; ')}${more}`,
  };
}
