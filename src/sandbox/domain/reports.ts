/** The four computed reports (part 4.12, G17), from the sandbox's own data; percentages have 2 fraction digits. */
import { REPORTS } from '../../contract/index.js';
import { inDateRange, parseDateRange, type DateRange } from '../http/paging.js';
import type { DomainEnv } from './env.js';
import { nowIso } from './env.js';
import { invalidField } from './errors.js';
import { money, percent, sum } from './money.js';
import { expenseFacts, purchaseFacts, salesFacts } from './report-data.js';

type Row = Record<string, unknown>;
const pctOrNull = (part: bigint, whole: bigint): string | null =>
  whole === 0n ? null : percent(part, whole);

function requiredRange(query: URLSearchParams): Required<DateRange> {
  for (const name of ['from', 'to'] as const) {
    if (!query.get(name)) throw invalidField(name, 'required', `${name} is required (YYYY-MM-DD).`);
  }
  const range = parseDateRange(query);
  return { from: range.from ?? '', to: range.to ?? '' };
}

function groupBy(
  query: URLSearchParams,
  allowed: readonly string[],
  multiple: boolean,
  fallback: string,
): string[] {
  const raw = query.get('group_by');
  const values = raw === null || raw === '' ? [fallback] : raw.split(',').map((value) => value.trim());
  if (!multiple && values.length > 1)
    throw invalidField('group_by', 'unsupported_value', 'group_by takes a single value here.');
  for (const value of values) {
    if (!allowed.includes(value))
      throw invalidField('group_by', 'unsupported_value', `group_by must be one of ${allowed.join(', ')}.`);
  }
  return [...new Set(values)];
}

const branchName = (env: DomainEnv, id: string | null): string | null =>
  id === null ? null : (env.state.branches[id]?.name ?? null);

export function foodCostReport(env: DomainEnv, query: URLSearchParams): Row {
  const range = requiredRange(query);
  const purchaseType = query.get('purchase_type');
  const branchFilter = query.get('branch_id');
  const purchases = purchaseFacts(env).filter(
    (fact) =>
      fact.source === 'purchase' &&
      fact.vendorType === 'goods' &&
      inDateRange(fact.date, range) &&
      (purchaseType === null || fact.purchaseType === purchaseType),
  );
  const sales = salesFacts(env).filter((fact) => inDateRange(fact.date, range));
  const branchIds = Object.keys(env.state.branches)
    .filter((id) => branchFilter === null || id === branchFilter)
    .sort();
  const rows = branchIds.map((branchId) => {
    const bought = sum(purchases.filter((fact) => fact.branchId === branchId).map((fact) => fact.amount));
    const sold = sum(sales.filter((fact) => fact.branchId === branchId).map((fact) => fact.amount));
    return {
      branch_id: branchId,
      branch_name: branchName(env, branchId),
      purchase_type: purchaseType,
      purchases: money(bought),
      sales: money(sold),
      food_cost_pct: pctOrNull(bought, sold),
    };
  });
  const inScope = new Set(branchIds);
  const totalBought = sum(
    purchases
      .filter((fact) => fact.branchId !== null && inScope.has(fact.branchId))
      .map((fact) => fact.amount),
  );
  const totalSold = sum(sales.filter((fact) => inScope.has(fact.branchId)).map((fact) => fact.amount));
  return {
    ...envelope(env, range, ['branch']),
    rows,
    totals: {
      purchase_type: purchaseType,
      purchases: money(totalBought),
      sales: money(totalSold),
      food_cost_pct: pctOrNull(totalBought, totalSold),
    },
  };
}

function envelope(env: DomainEnv, range: DateRange, dimensions: string[]): Row {
  return { ...range, generated_at: nowIso(env), currency: 'ILS', dimensions };
}

export function purchasesReport(env: DomainEnv, query: URLSearchParams): Row {
  const range = requiredRange(query);
  const spec = REPORTS['/reports/purchases'];
  const [dimension = 'supplier'] = groupBy(query, spec.groupBy, spec.groupByMultiple, 'supplier');
  const branchFilter = query.get('branch_id');
  const facts = purchaseFacts(env).filter(
    (fact) => inDateRange(fact.date, range) && (branchFilter === null || fact.branchId === branchFilter),
  );
  const groups = new Map<string, { row: Row; count: number; amount: bigint }>();
  for (const fact of facts) {
    const key =
      dimension === 'supplier'
        ? fact.supplierId
        : dimension === 'branch'
          ? String(fact.branchId)
          : String(fact.purchaseType);
    const row: Row =
      dimension === 'supplier'
        ? { supplier_id: fact.supplierId, supplier_name: fact.supplierName }
        : dimension === 'branch'
          ? { branch_id: fact.branchId, branch_name: branchName(env, fact.branchId) }
          : { purchase_type: fact.purchaseType };
    const group = groups.get(key) ?? { row, count: 0, amount: 0n };
    group.count += 1;
    group.amount += fact.amount;
    groups.set(key, group);
  }
  const rows = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, group]) => ({ ...group.row, documents_count: group.count, purchases: money(group.amount) }));
  return {
    ...envelope(env, range, [dimension]),
    rows,
    totals: { documents_count: facts.length, purchases: money(sum(facts.map((fact) => fact.amount))) },
  };
}

export function expensesReport(env: DomainEnv, query: URLSearchParams): Row {
  const range = requiredRange(query);
  const spec = REPORTS['/reports/expenses'];
  const dimensions = groupBy(query, spec.groupBy, spec.groupByMultiple, 'category');
  const branchFilter = query.get('branch_id');
  const facts = expenseFacts(env).filter(
    (fact) => inDateRange(fact.date, range) && (branchFilter === null || fact.branchId === branchFilter),
  );
  const groups = new Map<string, { row: Row; amount: bigint; vat: bigint }>();
  for (const fact of facts) {
    const row: Row = {};
    if (dimensions.includes('category')) {
      row['category_id'] = fact.categoryId;
      row['category_name'] =
        env.state.expenseCategories.find((category) => category.id === fact.categoryId)?.name ?? null;
    }
    if (dimensions.includes('branch')) {
      row['branch_id'] = fact.branchId;
      row['branch_name'] = branchName(env, fact.branchId);
    }
    if (dimensions.includes('purchase_type')) row['purchase_type'] = fact.purchaseType;
    const key = JSON.stringify(row);
    const group = groups.get(key) ?? { row, amount: 0n, vat: 0n };
    group.amount += fact.amount;
    group.vat += fact.vat;
    groups.set(key, group);
  }
  const rows = [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, group]) => ({
      ...group.row,
      expenses: money(group.amount),
      vat: money(group.vat),
      total: money(group.amount + group.vat),
    }));
  const expenses = sum(facts.map((fact) => fact.amount));
  const vat = sum(facts.map((fact) => fact.vat));
  return {
    ...envelope(env, range, dimensions),
    rows,
    totals: { expenses: money(expenses), vat: money(vat), total: money(expenses + vat) },
  };
}

const PL_GROUP_NAMES: Readonly<Record<string, string>> = {
  revenue: 'Revenue',
  cost_of_sales: 'Cost of sales',
  operating_expenses: 'Operating expenses',
  general_admin: 'General and administrative',
  fixed: 'Rent and fixed costs',
};

export function pnlReport(env: DomainEnv, query: URLSearchParams): Row {
  const period = query.get('period');
  if (!period) throw invalidField('period', 'required', 'period is required (YYYY-MM).');
  if (!/^\d{4}-(0[1-9]|1[0-2])$/.test(period))
    throw invalidField('period', 'invalid_format', 'period must be YYYY-MM.');
  const branchFilter = query.get('branch_id');
  const inBranch = (branchId: string | null) => branchFilter === null || branchId === branchFilter;
  const revenue = sum(
    salesFacts(env)
      .filter((fact) => fact.date.startsWith(period) && inBranch(fact.branchId))
      .map((fact) => fact.amount),
  );
  const amounts = new Map<string, bigint>(Object.keys(PL_GROUP_NAMES).map((group) => [group, 0n]));
  amounts.set('revenue', revenue);
  for (const fact of purchaseFacts(env)) {
    if (fact.period === period && inBranch(fact.branchId))
      amounts.set('cost_of_sales', (amounts.get('cost_of_sales') ?? 0n) + fact.amount);
  }
  for (const fact of expenseFacts(env)) {
    if (fact.period !== period || !inBranch(fact.branchId)) continue;
    const group =
      env.state.expenseCategories.find((category) => category.id === fact.categoryId)?.pl_group ??
      'operating_expenses';
    amounts.set(group, (amounts.get(group) ?? 0n) + fact.amount);
  }
  const rows = [...amounts.entries()].map(([group, amount]) => ({
    pl_group: group,
    pl_group_name: PL_GROUP_NAMES[group] ?? group,
    amount: money(amount),
    pct_of_revenue: pctOrNull(amount, revenue),
  }));
  const costs = sum(
    [...amounts.entries()].filter(([group]) => group !== 'revenue').map(([, amount]) => amount),
  );
  return {
    period,
    generated_at: nowIso(env),
    currency: 'ILS',
    dimensions: ['pl_group'],
    rows,
    totals: {
      branch_id: branchFilter,
      revenue: money(revenue),
      costs: money(costs),
      profit: money(revenue - costs),
      profit_pct: pctOrNull(revenue - costs, revenue),
    },
  };
}
