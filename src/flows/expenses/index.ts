/** The `expenses` flow: expenses kept in a back-office source (SQL, a CSV drop folder) -> the API, once each. */
import { defineFlow, jobConnector } from '../../plugin/index.js';
import { createExpensesJob } from './job.js';
import { EXPENSES_FLOW, EXPENSES_SCOPES, expensesOptionsSchema } from './options.js';

export const expensesFlow = defineFlow({
  flow: EXPENSES_FLOW,
  description:
    "Expenses from a back-office source (with their receipts) -> the API once each, the API's expense id written back",
  side: 'buyer',
  scopes: EXPENSES_SCOPES,
  requires: ['expenseSource'],
  triggerEvents: [],
  options: expensesOptionsSchema,
  create(job, deps) {
    const source = jobConnector(EXPENSES_FLOW, job, deps);
    return createExpensesJob({
      name: job.name,
      api: deps.api,
      source: () => source.require('expenseSource'),
      options: job.options,
      mappings: deps.mappings,
    });
  },
});

export { createExpensesJob, type ExpensesJobInput, type ExpenseDeadLetter } from './job.js';
export {
  expensesOptionsSchema,
  EXPENSES_FLOW,
  EXPENSES_SCOPES,
  type ExpensesOptions,
  type ExpensesOptionsInput,
} from './options.js';
export { buildExpenseBody, type ExpenseBody } from './body.js';
export { expenseValueMaps } from './mapping.js';
export { expenseIdempotencyKey } from './send.js';
export { MAX_ATTACHMENT_BYTES } from './attachments.js';
