/**
 * A 422 on POST /expenses -> what the buyer's rule or the field rule refused, in words an operator can act on.
 * The contract names three blocking rules (4.8); the item codes they answer with are the sandbox's choice, recorded
 * in docs/contract-gaps.md (row 20, G13).
 */
import type { ValidationErrorItem } from '../../contract/index.js';

export type ExpenseRule = 'attachment required' | 'allocation number' | 'account mapping' | 'validation';

export interface Refusal {
  rule: ExpenseRule;
  field: string;
  code: string;
  message: string | null;
}

function ruleOf(item: ValidationErrorItem): ExpenseRule {
  if (item.code === 'attachment_required') return 'attachment required';
  if (item.code === 'no_account_mapping') return 'account mapping';
  if (item.field === 'allocation_number' && item.code === 'required') return 'allocation number';
  return 'validation';
}

const FIXES: Readonly<Record<ExpenseRule, string>> = {
  'attachment required': 'attach the receipt in the source',
  'allocation number': 'enter the allocation number in the source (required above 5,000.00 ILS)',
  'account mapping': 'map the category to an expense account in the API, or use a mapped category',
  validation: 'correct the field in the source',
};

export function refusalsOf(items: readonly ValidationErrorItem[]): Refusal[] {
  return items.map((item) => ({
    rule: ruleOf(item),
    field: item.field,
    code: item.code,
    message: item.message ?? null,
  }));
}

export function describeRefusals(refusals: readonly Refusal[]): string {
  const parts = refusals.map((refusal) => {
    const what = refusal.rule === 'validation' ? 'refused' : `blocked by the buyer's ${refusal.rule} rule`;
    const message = refusal.message === null ? '' : ` (${refusal.message})`;
    return `${what}: ${refusal.field} ${refusal.code}${message}; ${FIXES[refusal.rule]}`;
  });
  return `the API refused the expense: ${parts.join(' | ')}`;
}
