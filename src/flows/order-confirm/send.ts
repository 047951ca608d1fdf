/**
 * Sends one ERP confirmation and marks it sent in the ERP only after the API accepted it. Crash windows:
 * - accepted, not recorded: the retry carries the same Idempotency-Key and body (the API replays its answer, and
 *   G1/G3 make a repeat on an order already in that state a 200 without change);
 * - recorded, not marked in the ERP: the next run finds the ledger entry and only marks it.
 * A 409 (the order is no longer pending) is reconciled by re-reading the order: if it already shows what the ERP
 * decided, the confirmation counts as sent; otherwise it becomes a dead letter that says what the API shows.
 */
import type { ApiClient } from '../../client/index.js';
import type { ConfirmationSource, ErpConfirmation } from '../../connector-contract/index.js';
import type { Order } from '../../contract/index.js';
import { contentHash, idempotencyKey } from '../../engine/index.js';
import type { StateStore } from '../../state/index.js';
import { isConflict, isNotFound, RecordProblem } from '../shared/failures.js';
import type { ConfirmationRequest } from './request.js';

export type SendOutcome = 'sent' | 'reconciled' | 'marked';

export interface ConfirmationSenderDeps {
  api: Pick<ApiClient, 'orders'>;
  source: ConfirmationSource;
  state: StateStore;
  flow: string;
  connector: string;
}

/** "6", "6.0" and "6.000" are the same quantity. */
export function sameQuantity(a: string | null | undefined, b: string | null | undefined): boolean {
  if (a == null || b == null) return a == b;
  const canonical = (value: string) => {
    const [whole = '0', fraction = ''] = value.trim().split('.');
    return `${whole.replace(/^(-?)0+(?=\d)/, '$1')}.${fraction.replace(/0+$/, '')}`;
  };
  return canonical(a) === canonical(b);
}

/** Whether the order as the API has it already reflects the request. */
export function orderShows(order: Order, request: ConfirmationRequest): boolean {
  if (request.kind === 'reject') return order.status === 'rejected';
  if (order.status !== 'approved' && order.status !== 'partially_approved') return false;
  const lines = request.body.lines ?? [];
  if (lines.length === 0) return order.status === 'approved';
  const byId = new Map((order.lines ?? []).map((line) => [line.id, line]));
  return lines.every((line) => {
    const current = byId.get(line.line_id);
    return (
      current !== undefined &&
      sameQuantity(current.quantity_confirmed, line.quantity_confirmed ?? current.quantity)
    );
  });
}

export class ConfirmationSender {
  constructor(private readonly deps: ConfirmationSenderDeps) {}

  async send(
    confirmation: ErpConfirmation,
    request: ConfirmationRequest,
    signal: AbortSignal,
  ): Promise<SendOutcome> {
    const { state, source } = this.deps;
    const version = contentHash(request);
    const key = {
      flow: this.deps.flow,
      connector: this.deps.connector,
      recordKey: `confirmation:${confirmation.ref}`,
      version,
    };
    if (state.ledger.has(key)) {
      await source.markConfirmationSent(confirmation.ref);
      return 'marked';
    }
    const outcome = await this.#post(confirmation, request, version, signal);
    state.ledger.record(key, confirmation.apiOrderId);
    await source.markConfirmationSent(confirmation.ref);
    return outcome;
  }

  async #post(
    confirmation: ErpConfirmation,
    request: ConfirmationRequest,
    version: string,
    signal: AbortSignal,
  ): Promise<SendOutcome> {
    const { api } = this.deps;
    const orderId = confirmation.apiOrderId;
    const call = { signal, idempotencyKey: idempotencyKey('order-confirm', confirmation.ref, version) };
    try {
      if (request.kind === 'reject') await api.orders.reject(orderId, request.body, call);
      else await api.orders.confirm(orderId, request.body, call);
      return 'sent';
    } catch (error) {
      if (isNotFound(error)) {
        throw new RecordProblem(
          `confirmation ${confirmation.ref}: order ${orderId} does not exist in the API`,
        );
      }
      if (!isConflict(error)) throw error;
    }
    const order = await api.orders.get(orderId, { signal });
    if (orderShows(order, request)) return 'reconciled';
    throw new RecordProblem(
      `confirmation ${confirmation.ref} (${confirmation.kind}) was refused: order ${order.number} (${orderId}) is ` +
        `${order.status} in the API; ${refusalNextStep(order.status, confirmation.ref)}`,
    );
  }
}

/** What a person does about a confirmation the API refused, by the order's state there. */
function refusalNextStep(status: string, ref: string): string {
  if (status === 'approved' || status === 'partially_approved') {
    return (
      `it was answered already with other lines (in the web app, or by an earlier confirmation): the API keeps that ` +
      `answer, so compare the order there with ERP confirmation ${ref}, correct the ERP to match, then discard this ` +
      'dead letter'
    );
  }
  if (status === 'rejected' || status === 'cancelled' || status === 'cancelled_after_approval') {
    return 'the order is closed there and takes no confirmation: tell the buyer if it must go ahead, then discard this dead letter';
  }
  return 'retry this dead letter once the order is pending approval again, or discard it if it is not to be sent';
}
