/** Buyer expenses: list and create (Idempotency-Key required). */
import { ClientConfigError } from '../errors.js';
import { requestResource, type ClientContext } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import type { Expense } from '../../contract/index.js';
import type { CreateExpenseBody } from '../request-types.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import {
  callOf,
  listSpec,
  type DateRange,
  type Expand,
  type ListOptions,
  type UpdatedSince,
} from './common.js';

export interface ExpenseFilters extends UpdatedSince, DateRange, Expand {
  branch_id?: string;
  category_id?: string;
  status?: string;
}

export function createExpensesApi(ctx: ClientContext) {
  return {
    list(options: ListOptions<ExpenseFilters> = {}): Paginated<Expense> {
      return paginate(ctx, listSpec('/expenses', options), parsers.expense);
    },
    create(body: CreateExpenseBody, options: CallOptions & { idempotencyKey: string }): Promise<Expense> {
      if (!options.idempotencyKey) {
        throw new ClientConfigError('idempotency_key_required', 'expenses.create needs an idempotencyKey');
      }
      return requestResource(
        ctx,
        { method: 'POST', route: '/expenses', json: body, ...callOf(options) },
        parsers.expense,
      );
    },
  };
}

export type ExpensesApi = ReturnType<typeof createExpensesApi>;
