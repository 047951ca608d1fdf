/** The buyer operations of part 4.6-4.12 (plan Pro or higher), with the gap choices G15-G18. */
import { EXPENSE_STATUSES, JOURNAL_LINE_STATUSES, JOURNAL_SOURCES, ORDER_STATUSES } from '../enums.js';
import { BUYER_DOCUMENT_ENDPOINTS, BUYER_REFERENCE_SCOPES, INVENTORY_SCOPE, REPORTS } from '../gaps.js';
import { ACCOUNTING_PERIOD_PATTERN } from '../formats.js';
import { LIMITS } from '../limits.js';
import type { OperationSpec } from './operation.js';
import { commaList, paramRef, pathParam, queryParam } from './parameters.js';
import { documentListParameters } from './paths-supplier.js';

const paging = [paramRef('cursor'), paramRef('limit')];
const period = (description: string, required = false) =>
  queryParam('period', { type: 'string', pattern: ACCOUNTING_PERIOD_PATTERN.source }, description, required);
const DATE = { type: 'string', format: 'date' } as const;
const buyer = { plan: 'Pro', notYetAvailable: true } as const;

function reference(
  path: keyof typeof BUYER_REFERENCE_SCOPES,
  operationId: string,
  summary: string,
  schema: string,
  parameters: OperationSpec['parameters'] = [],
  errors: OperationSpec['errors'] = [],
): OperationSpec {
  return {
    ...buyer,
    method: 'get',
    path,
    operationId,
    summary,
    tag: 'Buyer reference',
    scope: BUYER_REFERENCE_SCOPES[path],
    parameters,
    success: [{ status: 200, description: summary, schema }],
    errors,
    gap: 'G16',
  };
}

type ReportPath = keyof typeof REPORTS;

function report(path: ReportPath, operationId: string, summary: string, schema: string): OperationSpec {
  const rule = REPORTS[path];
  const required: readonly string[] = rule.required;
  const optional: readonly string[] = rule.optional;
  const groupBy = { type: 'string', enum: [...rule.groupBy] };
  const parameters = [
    ...(required.includes('from') ? [queryParam('from', DATE, 'First date, inclusive.', true)] : []),
    ...(required.includes('to') ? [queryParam('to', DATE, 'Last date, inclusive.', true)] : []),
    ...(required.includes('period') ? [period('Accounting period YYYY-MM.', true)] : []),
    ...(optional.includes('purchase_type')
      ? [queryParam('purchase_type', { type: 'string' }, 'Business line.')]
      : []),
    ...(optional.includes('group_by')
      ? [
          queryParam(
            'group_by',
            rule.groupByMultiple ? { type: 'array', items: groupBy } : groupBy,
            rule.groupByMultiple ? 'Comma-separated dimensions.' : 'One dimension.',
          ),
        ]
      : []),
    ...(optional.includes('branch_id') ? [paramRef('branch_id')] : []),
  ];
  return {
    ...buyer,
    method: 'get',
    path,
    operationId,
    summary,
    tag: 'Reports',
    scope: rule.scope,
    parameters,
    success: [{ status: 200, description: 'The report result.', schema }],
    gap: 'G17',
  };
}

export const BUYER_OPERATIONS: readonly OperationSpec[] = [
  reference('/branches', 'listBranches', 'Branches', 'BranchPage', paging, [403]),
  reference('/purchase-types', 'listPurchaseTypes', 'Purchase types', 'PurchaseTypeList'),
  reference('/suppliers', 'listSuppliers', 'Suppliers (vendors)', 'VendorPage', [
    ...paging,
    paramRef('updated_since'),
  ]),
  reference(
    '/suppliers/{supplier_id}',
    'getSupplier',
    'A supplier (vendor)',
    'Vendor',
    [pathParam('supplier_id', 'Id of the supplier.')],
    [404],
  ),
  reference('/products', 'listCatalogProducts', 'Catalog products', 'CatalogProductPage', [
    ...paging,
    paramRef('updated_since'),
  ]),
  reference('/expense-categories', 'listExpenseCategories', 'Expense categories', 'ExpenseCategoryList'),
  reference('/expense-accounts', 'listExpenseAccounts', 'Expense accounts', 'ExpenseAccountList'),
  reference('/account-mappings', 'listAccountMappings', 'Account mappings', 'AccountMappingList'),
  {
    ...buyer,
    method: 'get',
    path: '/orders',
    operationId: 'listPurchaseOrders',
    summary: 'List purchase orders',
    tag: 'Buyer purchases',
    scope: 'buyer.purchases:read',
    parameters: [
      ...paging,
      paramRef('updated_since'),
      paramRef('from'),
      paramRef('to'),
      paramRef('branch_id'),
      queryParam('supplier_id', { type: 'string' }, 'Only orders to this supplier.'),
      queryParam('status', commaList(ORDER_STATUSES), 'Comma-separated order statuses.'),
      paramRef('expand'),
    ],
    success: [{ status: 200, description: 'A page of orders.', schema: 'OrderPage' }],
  },
  {
    ...buyer,
    method: 'get',
    path: BUYER_DOCUMENT_ENDPOINTS.list.path,
    operationId: 'listPurchaseDocuments',
    summary: 'List purchase documents',
    tag: 'Buyer purchases',
    scope: BUYER_DOCUMENT_ENDPOINTS.list.scope,
    parameters: [
      ...documentListParameters(),
      queryParam('supplier_id', { type: 'string' }, 'Only documents of this supplier.'),
      paramRef('branch_id'),
    ],
    success: [{ status: 200, description: 'A page of documents.', schema: 'DocumentPage' }],
    gap: 'G15',
  },
  {
    ...buyer,
    method: 'get',
    path: BUYER_DOCUMENT_ENDPOINTS.get.path,
    operationId: 'getPurchaseDocument',
    summary: 'Read a purchase document',
    tag: 'Buyer purchases',
    scope: BUYER_DOCUMENT_ENDPOINTS.get.scope,
    parameters: [pathParam('document_id', 'Id of the document.'), paramRef('expand')],
    success: [{ status: 200, description: 'The document.', schema: 'Document' }],
    errors: [404],
    gap: 'G15',
  },
  {
    ...buyer,
    method: 'get',
    path: '/expenses',
    operationId: 'listExpenses',
    summary: 'List expenses',
    tag: 'Buyer expenses',
    scope: 'buyer.expenses:read',
    parameters: [
      ...paging,
      paramRef('updated_since'),
      paramRef('from'),
      paramRef('to'),
      paramRef('branch_id'),
      queryParam('category_id', { type: 'string' }, 'Only expenses with a line of this category.'),
      queryParam('status', commaList(EXPENSE_STATUSES), 'Expense status.'),
      paramRef('expand'),
    ],
    success: [{ status: 200, description: 'A page of expenses.', schema: 'ExpensePage' }],
  },
  {
    ...buyer,
    method: 'post',
    path: '/expenses',
    operationId: 'createExpense',
    summary: 'Record an expense',
    description:
      "The buyer's blocking rules apply: mandatory attachments, allocation numbers above 5,000 ILS, missing " +
      'account mappings.',
    tag: 'Buyer expenses',
    scope: 'buyer.expenses:write',
    idempotencyKey: 'required',
    body: 'CreateExpenseRequest',
    success: [{ status: 201, description: 'The expense, in pending_approval.', schema: 'Expense' }],
    gap: 'G13',
  },
  {
    ...buyer,
    method: 'get',
    path: '/accounting/journal-lines',
    operationId: 'listJournalLines',
    summary: 'List journal lines',
    tag: 'Buyer accounting',
    scope: 'buyer.accounting:read',
    parameters: [
      ...paging,
      paramRef('updated_since'),
      period('Accounting period YYYY-MM.'),
      queryParam('status', commaList(JOURNAL_LINE_STATUSES), 'Journal line status.'),
      paramRef('branch_id'),
      queryParam('source', commaList(JOURNAL_SOURCES), 'Source of the line.'),
    ],
    success: [{ status: 200, description: 'A page of journal lines.', schema: 'JournalLinePage' }],
    errors: [403],
  },
  {
    ...buyer,
    method: 'post',
    path: '/accounting/exports',
    operationId: 'createAccountingExport',
    summary: `Mark up to ${LIMITS.journalLinesPerExport} journal lines exported`,
    tag: 'Buyer accounting',
    scope: 'buyer.accounting:write',
    idempotencyKey: 'required',
    body: 'CreateAccountingExportRequest',
    success: [{ status: 201, description: 'The export batch.', schema: 'AccountingExportBatch' }],
    errors: [409],
  },
  {
    ...buyer,
    method: 'get',
    path: '/accounting/exports/{export_batch_id}',
    operationId: 'getAccountingExport',
    summary: 'Read an accounting export batch',
    tag: 'Buyer accounting',
    scope: 'buyer.accounting:read',
    parameters: [pathParam('export_batch_id', 'Id of the export batch.')],
    success: [{ status: 200, description: 'The export batch.', schema: 'AccountingExportBatch' }],
    errors: [404],
  },
  {
    ...buyer,
    method: 'get',
    path: '/sales/z-reports',
    operationId: 'listZReports',
    summary: 'List Z-reports',
    tag: 'Buyer sales',
    scope: 'buyer.sales:read',
    parameters: [...paging, paramRef('from'), paramRef('to'), paramRef('branch_id')],
    success: [{ status: 200, description: 'A page of Z-reports.', schema: 'ZReportPage' }],
  },
  {
    ...buyer,
    method: 'post',
    path: '/sales/z-reports',
    operationId: 'upsertZReports',
    summary: `Create or update up to ${LIMITS.batch.zReports} Z-reports`,
    description:
      'Re-sending the same branch_id and z_number updates the report; item keys are branch_id/z_number.',
    tag: 'Buyer sales',
    scope: 'buyer.sales:write',
    body: 'ZReportBatchRequest',
    success: [{ status: 200, description: 'Per-item results.', schema: 'BatchResponse' }],
  },
  {
    ...buyer,
    method: 'get',
    path: '/sales/item-sales',
    operationId: 'listItemSales',
    summary: 'List item sales',
    tag: 'Buyer sales',
    scope: 'buyer.sales:read',
    parameters: [
      ...paging,
      paramRef('from'),
      paramRef('to'),
      paramRef('branch_id'),
      queryParam('z_number', { type: 'string' }, 'Only sales of this Z-report.'),
    ],
    success: [{ status: 200, description: 'A page of item sales.', schema: 'ItemSalePage' }],
  },
  {
    ...buyer,
    method: 'post',
    path: '/sales/item-sales',
    operationId: 'upsertItemSales',
    summary: `Create or update up to ${LIMITS.batch.itemSales} item sales`,
    description: 'Item keys are branch_id/z_number/line_number.',
    tag: 'Buyer sales',
    scope: 'buyer.sales:write',
    body: 'ItemSaleBatchRequest',
    success: [{ status: 200, description: 'Per-item results.', schema: 'BatchResponse' }],
  },
  {
    ...buyer,
    method: 'get',
    path: '/inventory-counts',
    operationId: 'listInventoryCounts',
    summary: 'List inventory counts',
    tag: 'Buyer inventory',
    scope: INVENTORY_SCOPE,
    parameters: [...paging, paramRef('from'), paramRef('to'), paramRef('branch_id'), paramRef('expand')],
    success: [{ status: 200, description: 'A page of inventory counts.', schema: 'InventoryCountPage' }],
    gap: 'G18',
  },
  {
    ...buyer,
    method: 'get',
    path: '/inventory-counts/{count_id}',
    operationId: 'getInventoryCount',
    summary: 'Read an inventory count with its lines',
    tag: 'Buyer inventory',
    scope: INVENTORY_SCOPE,
    parameters: [pathParam('count_id', 'Id of the count.')],
    success: [{ status: 200, description: 'The count, including lines.', schema: 'InventoryCount' }],
    errors: [404],
    gap: 'G18',
  },
  report('/reports/food-cost', 'getFoodCostReport', 'Food cost report', 'FoodCostReport'),
  report('/reports/purchases', 'getPurchasesReport', 'Purchases report', 'PurchasesReport'),
  report('/reports/expenses', 'getExpensesReport', 'Expenses report', 'ExpensesReport'),
  report('/reports/pnl', 'getPnlReport', 'Profit and loss report', 'PnlReport'),
];
