/**
 * The one place that maps each response resource to its lenient contract schema (src/contract).
 */
import type * as z from 'zod';
import { parseLenientAs, type ContractSchemas, type SchemaName } from '../contract/index.js';
import type { ResourceParser } from './parsing.js';

export type ContractType<N extends SchemaName> = z.output<ContractSchemas[N]>;

const parserCache = new Map<string, ResourceParser<unknown>>();

export function contractParser<N extends SchemaName>(name: N): ResourceParser<ContractType<N>> {
  const cached = parserCache.get(name);
  if (cached) return cached as ResourceParser<ContractType<N>>;
  const parser: ResourceParser<ContractType<N>> = {
    resource: name,
    parse(raw) {
      const result = parseLenientAs(name, raw);
      if (!result.ok) return { ok: false, reason: result.reason };
      const drift = result.drift.map(
        (item) => `${item.kind} at ${item.path || '(root)'}: ${String(item.value)}`,
      );
      return { ok: true, value: result.value as ContractType<N>, drift };
    },
  };
  parserCache.set(name, parser as ResourceParser<unknown>);
  return parser;
}

export const parsers = {
  me: contractParser('Me'),
  token: contractParser('TokenResponse'),
  supplierBuyer: contractParser('SupplierBuyer'),
  buyerInvitation: contractParser('BuyerInvitation'),
  order: contractParser('Order'),
  document: contractParser('Document'),
  product: contractParser('Product'),
  priceList: contractParser('PriceList'),
  batchResponse: contractParser('BatchResponse'),
  journalLine: contractParser('JournalLine'),
  accountingExportBatch: contractParser('AccountingExportBatch'),
  file: contractParser('File'),
  exportJob: contractParser('ExportJob'),
  auditRequest: contractParser('AuditRequestEntry'),
  webhookEndpoint: contractParser('WebhookEndpoint'),
  webhookDelivery: contractParser('WebhookDelivery'),
  event: contractParser('EventEnvelope'),
  branch: contractParser('Branch'),
  purchaseType: contractParser('PurchaseType'),
  vendor: contractParser('Vendor'),
  catalogProduct: contractParser('CatalogProduct'),
  expenseCategory: contractParser('ExpenseCategory'),
  expenseAccount: contractParser('ExpenseAccount'),
  accountMapping: contractParser('AccountMapping'),
  expense: contractParser('Expense'),
  zReport: contractParser('ZReport'),
  itemSale: contractParser('ItemSale'),
  inventoryCount: contractParser('InventoryCount'),
  foodCostReport: contractParser('FoodCostReport'),
  purchasesReport: contractParser('PurchasesReport'),
  expensesReport: contractParser('ExpensesReport'),
  pnlReport: contractParser('PnlReport'),
};
