/**
 * components.schemas of the OpenAPI document, generated from the contract's zod schemas with zod's own
 * `z.toJSONSchema` over a registry, so a schema used inside another becomes a `$ref`. Responses come from the
 * document kit (open to additions), request bodies from the strict schemas (what the sandbox accepts).
 */
import * as z from 'zod';
import { buildContract, strict, type SchemaName } from '../build.js';
import { REQUEST_SCHEMA_NAMES, RESOURCE_SCHEMA_NAMES } from '../json-schema.js';
import { listOf, pageOf } from '../shared.js';
import { documentKit } from './kit.js';
import { SCHEMA_GAPS } from './gap-marks.js';
import type { JsonObject } from './types.js';

/** Items of the list endpoints: `<Item>Page` (page envelope) and `<Item>List` (bare `data`) are generated. */
export const PAGED_ITEMS = [
  'SupplierBuyer',
  'Order',
  'Document',
  'PriceList',
  'Branch',
  'Vendor',
  'CatalogProduct',
  'Expense',
  'JournalLine',
  'ZReport',
  'ItemSale',
  'InventoryCount',
  'AuditRequestEntry',
  'WebhookDelivery',
  'EventEnvelope',
] as const satisfies readonly SchemaName[];

export const LISTED_ITEMS = [
  'PurchaseType',
  'ExpenseCategory',
  'ExpenseAccount',
  'AccountMapping',
  'WebhookEndpoint',
] as const satisfies readonly SchemaName[];

/**
 * Resource names no operation answers with: the untyped page envelope (typed pages are generated), the card
 * transaction (no endpoint offered, G14) and the price entry (inline in PutPricesRequest).
 */
const UNUSED_RESOURCES: readonly SchemaName[] = ['PageEnvelope', 'CardTransaction', 'PriceEntry'];
const RESPONSE_NAMES = RESOURCE_SCHEMA_NAMES.filter((name) => !UNUSED_RESOURCES.includes(name));
/** The multipart upload is described by hand in paths-platform.ts. */
const REQUEST_NAMES = REQUEST_SCHEMA_NAMES.filter((name) => name !== 'FileUploadFields');

export const schemaRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

function stripSchemaIds(schema: JsonObject): JsonObject {
  const { $schema: _schema, $id: _id, ...rest } = schema;
  return rest;
}

/** Every component schema, keyed by name, with `x-contract-gap` on the shapes chosen for a gap. */
export function componentSchemas(): Record<string, JsonObject> {
  const doc = buildContract(documentKit);
  const registry = z.registry<{ id: string }>();
  for (const name of RESPONSE_NAMES) registry.add(doc[name], { id: name });
  for (const name of PAGED_ITEMS) registry.add(pageOf(documentKit, doc[name]), { id: `${name}Page` });
  for (const name of LISTED_ITEMS) registry.add(listOf(documentKit, doc[name]), { id: `${name}List` });
  for (const name of REQUEST_NAMES) registry.add(strict[name], { id: name });
  const generated = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'input',
    unrepresentable: 'any',
  }) as { schemas: Record<string, JsonObject> };
  const out: Record<string, JsonObject> = {};
  for (const [name, schema] of Object.entries(generated.schemas).sort(([a], [b]) => a.localeCompare(b))) {
    const gap = SCHEMA_GAPS[name];
    out[name] =
      gap === undefined ? stripSchemaIds(schema) : { ...stripSchemaIds(schema), 'x-contract-gap': gap };
  }
  return out;
}
