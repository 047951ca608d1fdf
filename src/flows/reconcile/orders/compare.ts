/**
 * `reconcile orders`: every order the API lists (changed within the window) against the ERP, through the order
 * sink's findOrder, and each acknowledgement's ERP number (the order's external_ref) against the ERP's. Which
 * orders belong in the ERP follows the orders flow's rules: sent and not finished, not before `start_from`, and
 * not acknowledged by another system when `skip_acknowledged_elsewhere` is set.
 */
import type { ApiClient } from '../../../client/index.js';
import type { ErpOrderRef, OrderSink } from '../../../connector-contract/index.js';
import type { Order } from '../../../contract/index.js';
import { ACTIONS } from '../journal/actions.js';
import type { Difference, ReconcileReport } from '../report.js';

export type OrdersApi = { readonly orders: Pick<ApiClient['orders'], 'list'> };

export interface OrderRules {
  readonly startFrom: string | null;
  readonly skipAcknowledgedElsewhere: boolean;
  /** The ERP number the orders job recorded when it wrote the order (its state), or null. */
  readonly writtenAs: (orderId: string) => string | null;
}

const NOT_SENT = new Set(['draft', 'waiting_to_send']);
const FINISHED = new Set(['cancelled', 'cancelled_after_approval', 'rejected']);

type Verdict = 'matched' | 'not_expected' | 'not_acknowledged' | Difference;

export async function compareOrders(
  api: OrdersApi,
  sink: Pick<OrderSink, 'findOrder'>,
  window: { readonly since: string; readonly label: string },
  rules: OrderRules,
): Promise<Omit<ReconcileReport, 'check' | 'scope' | 'target'>> {
  const counts: Record<string, number> = { api_orders: 0, matched: 0, not_expected: 0, not_acknowledged: 0 };
  const differences: Difference[] = [];
  let unreadable = 0;
  for await (const page of api.orders.list({ updated_since: window.since, limit: 200 }).pages()) {
    unreadable += page.quarantined.length;
    for (const order of page.items) {
      counts['api_orders'] = (counts['api_orders'] ?? 0) + 1;
      const verdict = judge(order, await sink.findOrder(order.id), rules);
      if (typeof verdict === 'string') counts[verdict] = (counts[verdict] ?? 0) + 1;
      else differences.push(verdict);
    }
  }
  if (unreadable > 0)
    differences.push(
      orderDifference(
        'cannot_compare',
        null,
        `${unreadable} order(s) from the API could not be read (the log names them)`,
      ),
    );
  counts['differences'] = differences.length;
  return {
    counts,
    matched: [
      `${counts['matched']} of ${counts['api_orders']} orders are in the ERP with the ERP number their acknowledgement carries`,
      `${counts['not_acknowledged']} in the ERP and not acknowledged yet (the next orders run sends it)`,
      `${counts['not_expected']} not meant for the ERP (drafts, finished before they reached it, before start_from, acknowledged elsewhere)`,
    ],
    notes: [`orders changed in the API since ${window.since} (${window.label})`],
    differences,
  };
}

function judge(order: Order, found: ErpOrderRef | null, rules: OrderRules): Verdict {
  const ack = order.external_ref ?? null;
  if (found === null) {
    const written = rules.writtenAs(order.id);
    if (written !== null) {
      return orderDifference(
        'missing_in_erp',
        order,
        `written as ERP order ${written}, which the ERP no longer holds`,
      );
    }
    if (ack !== null && ack !== '' && !rules.skipAcknowledgedElsewhere) {
      return orderDifference(
        'missing_in_erp',
        order,
        `acknowledged with ERP number ${ack}, which the ERP does not hold`,
      );
    }
    return expectedInErp(order, rules)
      ? orderDifference('missing_in_erp', order, `status ${order.status}, not in the ERP`)
      : 'not_expected';
  }
  if (ack === null || ack === '') return 'not_acknowledged';
  if (ack !== found.erpOrderNumber) {
    return {
      ...orderDifference(
        'erp_number_differs',
        order,
        `API acknowledgement ${ack}, ERP order ${found.erpOrderNumber}`,
      ),
      apiValue: ack,
      booksValue: found.erpOrderNumber,
    };
  }
  return 'matched';
}

function expectedInErp(order: Order, rules: OrderRules): boolean {
  if (NOT_SENT.has(order.status) || FINISHED.has(order.status)) return false;
  if (rules.startFrom !== null && Date.parse(order.updated_at) < Date.parse(rules.startFrom)) return false;
  const ack = order.external_ref ?? '';
  return !(rules.skipAcknowledgedElsewhere && ack !== '');
}

function orderDifference(kind: Difference['kind'], order: Order | null, detail: string): Difference {
  return {
    kind,
    document: order?.number ?? '',
    side: '',
    account: '',
    apiValue: order?.status ?? '',
    booksValue: '',
    apiIds: order === null ? [] : [order.id],
    batchIds: [],
    where: [],
    detail,
    action: ACTIONS[kind],
  };
}
