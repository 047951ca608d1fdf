/**
 * What one version of an API order does to the ERP. Crash windows and how a restart closes them:
 * - ERP write committed, ledger not recorded: the page is redelivered; writeOrder finds the order by its API id
 *   inside its transaction and returns the ERP number without writing; the ack follows.
 * - ledger recorded, ack not sent: the redelivered (or next) version sends it.
 * - ack accepted, not recorded: acknowledging again with the same external_ref is an idempotent 200 (G2), and
 *   the request carries the same Idempotency-Key (order id and ERP number), so a late copy is replayed as well.
 */
import type { ApiClient } from '../../client/index.js';
import { ConnectorError, type OrderSink } from '../../connector-contract/index.js';
import type { Order } from '../../contract/index.js';
import { contentHash, idempotencyKey } from '../../engine/index.js';
import { isConflict, RecordProblem } from '../shared/failures.js';
import type { OrderBook } from './order-book.js';
import type { OrderMapper } from './mapping.js';
import type { OrdersOptions } from './options.js';

export type OrderOutcome = 'written' | 'recovered' | 'updated' | 'cancelled' | 'unchanged' | 'skipped';

export interface OrderPreview {
  verdict: 'skipped' | 'already_in_erp' | 'would_write' | 'would_dead_letter';
  reason?: string;
}

export interface ProcessedOrder {
  outcome: OrderOutcome;
  acknowledged: boolean;
}

const ACTIVE = new Set(['pending_approval', 'approved', 'partially_approved']);
const CANCELLED = new Set(['cancelled', 'cancelled_after_approval']);
const NOT_SENT = new Set(['draft', 'waiting_to_send']);

type ProcessOptions = Pick<
  OrdersOptions,
  'on_update' | 'on_cancel' | 'acknowledge' | 'start_from' | 'skip_acknowledged_elsewhere'
>;

export interface OrderProcessorDeps {
  api: Pick<ApiClient, 'orders'>;
  sink: OrderSink;
  book: OrderBook;
  mapper: OrderMapper;
  options: ProcessOptions;
}

/** The acknowledgement's Idempotency-Key: the same order written as the same ERP number sends the same key. */
export function acknowledgementKey(orderId: string, erpNumber: string): string {
  return idempotencyKey('order-ack', orderId, erpNumber);
}

const hasText = (value: string | null | undefined): value is string =>
  typeof value === 'string' && value !== '';

export class OrderProcessor {
  readonly #startFromMs: number | null;

  constructor(private readonly deps: OrderProcessorDeps) {
    this.#startFromMs = deps.options.start_from === null ? null : Date.parse(deps.options.start_from);
  }

  /**
   * Applies one order version. `operatorRetry` marks a dead letter an operator queued again: an update held back
   * by `on_update: dead_letter` is then applied. Throws RecordProblem for record-level failures.
   */
  async process(order: Order, signal: AbortSignal, operatorRetry = false): Promise<ProcessedOrder> {
    if (NOT_SENT.has(order.status)) return { outcome: 'skipped', acknowledged: false };
    let erpNumber = this.deps.book.erpNumber(order.id);
    let outcome: OrderOutcome;
    if (erpNumber === null) {
      const placed = await this.#place(order);
      if (placed === null) return { outcome: 'skipped', acknowledged: false };
      ({ erpNumber, outcome } = placed);
      if (CANCELLED.has(order.status)) outcome = await this.#cancel(order, outcome);
    } else if (CANCELLED.has(order.status)) {
      outcome = await this.#cancel(order, 'unchanged');
    } else if (ACTIVE.has(order.status) || !this.#isKnown(order.status)) {
      outcome = await this.#update(order, erpNumber, operatorRetry);
    } else {
      outcome = 'unchanged';
    }
    const acknowledged = await this.#acknowledge(order, erpNumber, signal);
    return { outcome, acknowledged };
  }

  #isKnown(status: string): boolean {
    return ACTIVE.has(status) || CANCELLED.has(status) || NOT_SENT.has(status) || status === 'rejected';
  }

  /** First sight of an order: write it, or adopt what an earlier, interrupted run already wrote. */
  async #place(order: Order): Promise<{ erpNumber: string; outcome: OrderOutcome } | null> {
    const { sink, book } = this.deps;
    if (this.#leftAlone(order)) {
      // Never write these, but adopt the order if a run cut short by a crash already put it in the ERP.
      const found = await sink.findOrder(order.id);
      if (found === null) return null;
      book.recordWritten(order.id, found.erpOrderNumber, null);
      return { erpNumber: found.erpOrderNumber, outcome: 'recovered' };
    }
    if (!this.#isKnown(order.status)) {
      throw new RecordProblem(
        `order ${order.number} (${order.id}) has status "${order.status}", which this version does not know; it is written once the status is one of pending_approval, approved, partially_approved`,
      );
    }
    const mapped = await this.deps.mapper.map(order);
    if (!mapped.ok) throw new RecordProblem(mapped.problems.join('; '), { missing: mapped.missing });
    const result = await sink.writeOrder(mapped.order);
    book.recordWritten(order.id, result.erpOrderNumber, contentHash(mapped.order));
    return {
      erpNumber: result.erpOrderNumber,
      outcome: result.status === 'written' ? 'written' : 'recovered',
    };
  }

  /** Orders never written by this flow: finished ones, ones before start_from, ones another system acknowledged. */
  #leftAlone(order: Order): boolean {
    const terminal = CANCELLED.has(order.status) || order.status === 'rejected';
    const tooOld = this.#startFromMs !== null && Date.parse(order.updated_at) < this.#startFromMs;
    const elsewhere = this.deps.options.skip_acknowledged_elsewhere && hasText(order.external_ref);
    return terminal || tooOld || elsewhere;
  }

  /** What process() would do with an order not yet in the ERP, without writing or sending anything. */
  /** What a real run would do with the order; for a failure, the reason the dead letter would carry. */
  async preview(order: Order): Promise<OrderPreview> {
    if (NOT_SENT.has(order.status)) return { verdict: 'skipped' };
    if (this.deps.book.erpNumber(order.id) !== null) return { verdict: 'already_in_erp' };
    if (this.#leftAlone(order)) return { verdict: 'skipped' };
    if (!this.#isKnown(order.status)) {
      return {
        verdict: 'would_dead_letter',
        reason: `order status ${order.status} is not one this build knows`,
      };
    }
    const mapped = await this.deps.mapper.map(order);
    if (!mapped.ok) return { verdict: 'would_dead_letter', reason: mapped.problems.join('; ') };
    const check = this.deps.sink.checkOrderWrite;
    if (check === undefined) return { verdict: 'would_write' };
    try {
      await check.call(this.deps.sink, mapped.order);
    } catch (error) {
      // A database that cannot be reached says nothing about the order: the dry run fails as a whole.
      if (error instanceof ConnectorError && error.retryable) throw error;
      return { verdict: 'would_dead_letter', reason: error instanceof Error ? error.message : String(error) };
    }
    return { verdict: 'would_write' };
  }

  async #update(order: Order, erpNumber: string, operatorRetry: boolean): Promise<OrderOutcome> {
    const { options, book, sink } = this.deps;
    if (options.on_update === 'ignore' || book.isCancelled(order.id)) return 'unchanged';
    const mapped = await this.deps.mapper.map(order);
    if (!mapped.ok) throw new RecordProblem(mapped.problems.join('; '), { missing: mapped.missing });
    const hash = contentHash(mapped.order);
    if (book.appliedHash(order.id) === hash) return 'unchanged';
    if (options.on_update === 'dead_letter' && !operatorRetry) {
      throw new RecordProblem(
        `order ${order.number} (${order.id}) changed after it was written to the ERP as ${erpNumber}; on_update is dead_letter: apply the change in the ERP, then discard this letter, or retry it to apply it automatically`,
      );
    }
    const result = await sink.applyOrderUpdate(mapped.order);
    if (result.status === 'not_found') {
      throw new RecordProblem(
        `order ${order.number} (${order.id}) was written to the ERP as ${erpNumber} but the ERP no longer has it`,
      );
    }
    book.recordApplied(order.id, hash);
    return 'updated';
  }

  async #cancel(order: Order, otherwise: OrderOutcome): Promise<OrderOutcome> {
    const { options, book, sink } = this.deps;
    if (options.on_cancel === 'ignore' || book.isCancelled(order.id)) return otherwise;
    const reason =
      order.status === 'cancelled_after_approval'
        ? 'cancelled by the buyer after approval'
        : 'cancelled by the buyer';
    const result = await sink.cancelOrder(order.id, reason);
    if (result.status === 'not_found') {
      throw new RecordProblem(
        `order ${order.number} (${order.id}) was cancelled but the ERP no longer has it`,
      );
    }
    book.recordCancelled(order.id);
    return 'cancelled';
  }

  /** Sends the ERP number as external_ref once; returns whether a request was sent. */
  async #acknowledge(order: Order, erpNumber: string, signal: AbortSignal): Promise<boolean> {
    const { options, book, api } = this.deps;
    if (!options.acknowledge || book.isAcknowledged(order.id, erpNumber)) return false;
    if (order.external_ref === erpNumber) {
      book.recordAcknowledged(order.id, erpNumber);
      return false;
    }
    if (hasText(order.external_ref)) throw this.#ackConflict(order, order.external_ref, erpNumber);
    try {
      await api.orders.acknowledge(
        order.id,
        { external_ref: erpNumber },
        { signal, idempotencyKey: acknowledgementKey(order.id, erpNumber) },
      );
    } catch (error) {
      if (!isConflict(error)) throw error;
      // 409: another external_ref is recorded (or the order moved on); the current order says which.
      const current = await api.orders.get(order.id, { signal, expand: ['-lines'] });
      if (current.external_ref !== erpNumber) {
        throw this.#ackConflict(order, current.external_ref ?? null, erpNumber);
      }
    }
    book.recordAcknowledged(order.id, erpNumber);
    return true;
  }

  #ackConflict(order: Order, recorded: string | null, erpNumber: string): RecordProblem {
    return new RecordProblem(
      `order ${order.number} (${order.id}) is in the ERP as ${erpNumber} but the API refused the acknowledgement (external_ref there: ${recorded === null ? 'none' : JSON.stringify(recorded)})`,
    );
  }
}
