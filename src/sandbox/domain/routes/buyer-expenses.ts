/** Buyer expenses (4.8, G13): the list and creation under the buyer's blocking rules. */
import { inDateRange, parseDateRange } from '../../http/paging.js';
import type { RouteDef } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { clone } from '../env.js';
import { createExpense, type ExpenseInput } from '../expenses.js';
import { ExpenseBody } from '../requests.js';
import { parseBody } from '../validate.js';
import { BUYER_GROUP, NOTHING, indexedPageReply, isDemoBuyer, listParam, requireOwner } from './common.js';

export function buyerExpenseRoutes(env: DomainEnv): RouteDef[] {
  const base = { accountType: 'buyer', group: BUYER_GROUP, minPlan: 'Pro' } as const;
  return [
    {
      ...base,
      method: 'GET',
      path: '/expenses',
      scope: 'buyer.expenses:read',
      handle: (ctx) => {
        const range = parseDateRange(ctx.query);
        const statuses = listParam(ctx.query, 'status');
        const branchId = ctx.query.get('branch_id');
        const categoryId = ctx.query.get('category_id');
        return indexedPageReply(
          env,
          isDemoBuyer(ctx) ? env.state.expenses : NOTHING,
          ctx.query,
          (expense) =>
            inDateRange(expense.doc_date, range) &&
            (statuses === null || statuses.has(expense.status)) &&
            (branchId === null || expense.branch_id === branchId) &&
            (categoryId === null || expense.lines.some((line) => line.category_id === categoryId)),
        );
      },
    },
    {
      ...base,
      method: 'POST',
      path: '/expenses',
      scope: 'buyer.expenses:write',
      idempotency: 'required',
      handle: (ctx) => {
        const input = parseBody(ExpenseBody, ctx.body) as ExpenseInput;
        requireOwner(isDemoBuyer(ctx), 'Supplier', input.vendor_id);
        const expense = createExpense(env, input, {
          accountId: ctx.caller.accountId,
          source: 'api',
          enforceAttachments: true,
        });
        return { status: 201, body: clone(expense) };
      },
    },
  ];
}
