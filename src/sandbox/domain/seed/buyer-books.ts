/** The demo buyer's own books: expenses of every vendor type, and inventory counts. */
import { DEMO_BUYER_ACCOUNT_ID } from '../../http/types.js';
import type { DomainEnv } from '../env.js';
import { approveExpense, createExpense, type ExpenseInput } from '../expenses.js';
import { completeInventoryCount, startInventoryCount } from '../inventory.js';
import { cents, money, vatOf } from '../money.js';
import type { SeedClock } from './activity.js';
import type { Random } from './random.js';

interface ExpensePlan {
  vendorId: string;
  categoryId: string;
  docType: ExpenseInput['doc_type'];
  amount: [number, number];
  merchant?: string;
}

const PLANS: readonly ExpensePlan[] = [
  {
    vendorId: 'ven_electric',
    categoryId: 'cat_utilities',
    docType: 'tax_invoice',
    amount: [180_000, 420_000],
  },
  { vendorId: 'ven_cleaning', categoryId: 'cat_cleaning', docType: 'tax_invoice', amount: [90_000, 160_000] },
  {
    vendorId: 'ven_card',
    categoryId: 'cat_software',
    docType: 'card_txn',
    amount: [9_900, 39_900],
    merchant: 'Cloud POS subscription',
  },
  {
    vendorId: 'ven_card',
    categoryId: 'cat_vehicles',
    docType: 'card_txn',
    amount: [20_000, 60_000],
    merchant: 'Paz fuel station',
  },
  { vendorId: 'ven_dairy', categoryId: 'cat_dairy', docType: 'tax_invoice', amount: [150_000, 380_000] },
  { vendorId: 'ven_bakery', categoryId: 'cat_dry', docType: 'invoice_receipt', amount: [60_000, 140_000] },
  { vendorId: 'ven_kitchen', categoryId: 'cat_produce', docType: 'none', amount: [200_000, 500_000] },
  {
    vendorId: 'ven_electric',
    categoryId: 'cat_rent',
    docType: 'payment_request',
    amount: [1_800_000, 1_800_000],
  },
];

const BRANCHES = ['br_tlv', 'br_hrz', 'br_jlm', 'br_hfa', 'br_bsh', 'br_rnn'];

export function expenseInput(
  random: Random,
  plan: ExpensePlan,
  branchId: string,
  date: string,
  number: string,
): ExpenseInput {
  const before = BigInt(random.int(plan.amount[0], plan.amount[1]));
  const vat = plan.docType === 'none' ? 0n : vatOf(before);
  const input: ExpenseInput = {
    vendor_id: plan.vendorId,
    doc_type: plan.docType,
    doc_date: date,
    branch_id: branchId,
    vat_mode: vat === 0n ? 'no_tax_doc' : 'with_vat',
    totals: { before_vat: money(before), vat: money(vat), with_vat: money(before + vat) },
    lines: [
      {
        category_id: plan.categoryId,
        amount_before_vat: money(before),
        vat_amount: money(vat),
        branch_id: branchId,
      },
    ],
    doc_number: number,
  };
  if (plan.merchant !== undefined) input.merchant_name = plan.merchant;
  if (cents(input.totals.before_vat) > 500_000n)
    input.allocation_number = number.replace(/\D/g, '').padStart(9, '0');
  return input;
}

export const pickPlan = (random: Random): ExpensePlan => random.pick(PLANS);

const options = { accountId: DEMO_BUYER_ACCOUNT_ID, source: 'manual', enforceAttachments: false };
const COUNT_BRANCHES = ['br_tlv', 'br_jlm', 'br_hfa', 'br_bsh'];

/** One day of the buyer's books: an expense most days (approved unless recent), inventory counts in the last week. */
export function seedBuyerDay(env: DomainEnv, random: Random, clock: SeedClock, daysAgo: number): void {
  if (daysAgo % 5 !== 4) {
    const plan = PLANS[daysAgo % PLANS.length];
    if (plan) {
      clock.tick();
      const expense = createExpense(
        env,
        expenseInput(random, plan, random.pick(BRANCHES), clock.date(), `EX-${String(5000 + daysAgo)}`),
        options,
      );
      clock.tick();
      if (daysAgo > 4) approveExpense(env, expense.id, false);
    }
  }
  const branchIndex = 7 - daysAgo;
  const branchId = COUNT_BRANCHES[branchIndex];
  if (branchId === undefined) return;
  const skus = Object.keys(env.state.products).filter(
    (sku) => !sku.startsWith('CLN') && !sku.startsWith('PKG'),
  );
  const counted = Array.from({ length: 12 }, (_, offset) => ({
    sku: skus[(branchIndex * 37 + offset * 11) % skus.length] ?? 'VEG-0001',
    quantity: String(random.int(1, 40)),
  }));
  clock.tick();
  const count = startInventoryCount(env, branchId, counted);
  clock.tick();
  if (branchIndex < 3) completeInventoryCount(env, count.id);
}
