/** Builds every schema of the contract in one mode; `strict` and `lenient` have the same keys. */
import { defineAccount } from './account.js';
import { defineAccounting } from './accounting.js';
import { defineBuyerReference } from './buyer-reference.js';
import { defineBuyers } from './buyers.js';
import { defineCatalog } from './catalog.js';
import { defineDocuments } from './documents.js';
import { defineErrors } from './errors.js';
import { defineEvents } from './events.js';
import { defineExpenses } from './expenses.js';
import { defineGapSchemas } from './gaps.js';
import { defineInventory } from './inventory.js';
import { type SchemaKit, lenientKit, strictKit } from './kit.js';
import { defineOrders } from './orders.js';
import { definePlatform } from './platform.js';
import { defineReports } from './reports.js';
import { defineBuyerRequests } from './requests-buyer.js';
import { type WebhookUrlOptions, definePlatformRequests } from './requests-platform.js';
import { defineSupplierRequests } from './requests-supplier.js';
import { defineSales } from './sales.js';
import { defineShared, pageOf } from './shared.js';

export type BuildOptions = WebhookUrlOptions;

export function buildContract(k: SchemaKit, options: BuildOptions = {}) {
  const shared = defineShared(k);
  const account = defineAccount(k);
  const buyers = defineBuyers(k);
  const catalog = defineCatalog(k);
  const orders = defineOrders(k, shared);
  const documents = defineDocuments(k, shared);
  const accounting = defineAccounting(k);
  const reference = defineBuyerReference(k);
  const expenses = defineExpenses(k, shared);
  const sales = defineSales(k);
  const inventory = defineInventory(k);
  const platform = definePlatform(k);
  const events = defineEvents(k);
  const gaps = defineGapSchemas(k, {
    Totals: shared.Totals,
    Order: orders.Order,
    Document: documents.Document,
    Expense: expenses.Expense,
    SupplierBuyer: buyers.SupplierBuyer,
    InventoryCount: inventory.InventoryCount,
    Vendor: reference.Vendor,
  });
  const { CreateExpenseGapFields, ...gapSchemas } = gaps;
  return {
    ...shared,
    ...account,
    ...buyers,
    ...catalog,
    ...orders,
    ...documents,
    ...accounting,
    ...reference,
    ...expenses,
    ...sales,
    ...inventory,
    ...defineReports(k),
    ...platform,
    ...events,
    EventPage: pageOf(k, events.EventEnvelope),
    ...defineErrors(k, shared),
    ...gapSchemas,
    ...defineSupplierRequests(k, catalog.PriceEntry),
    ...defineBuyerRequests(k, {
      ExpenseTotals: shared.ExpenseTotals,
      ZReportInput: sales.ZReportInput,
      ItemSaleInput: sales.ItemSaleInput,
      expenseGapFields: CreateExpenseGapFields,
    }),
    CreateExportJobRequest: platform.ExportRequest,
    ...definePlatformRequests(k, options),
  };
}

export type ContractSchemas = ReturnType<typeof buildContract>;
export type SchemaName = keyof ContractSchemas;

/** The sandbox's validators: unknown fields and unknown enum values are errors. */
export const strict: ContractSchemas = buildContract(strictKit);
/** The client's parsers: unknown fields stripped, unknown enum values kept (report them with parseLenient). */
export const lenient: ContractSchemas = buildContract(lenientKit);
