/**
 * The OpenAPI document: docs/openapi.json is what `supply-sync contract openapi` prints, it covers every
 * endpoint of part 4 and every event of part 6.2 (lists transcribed here from the contract text, not from our
 * code), its responses stay open to additions (part 9), and its gap marks name ids of docs/contract-gaps.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { buildOpenApiDocument } from '../../src/contract/openapi/index.js';
import { PATTERN_EXAMPLES } from '../../src/contract/openapi/examples.js';
import { type Json, isJson, resolve } from './openapi/document-walk.js';
import { DOCUMENT_PATH, ROOT } from './openapi/tools.js';

/** Part 4 of the contract, endpoint by endpoint. */
const PART_4 = [
  'POST /oauth/token',
  'GET /me',
  'GET /supplier/buyers',
  'GET /supplier/buyers/{buyer_id}',
  'PATCH /supplier/buyers/{buyer_id}',
  'POST /supplier/buyer-invitations',
  'GET /supplier/orders',
  'GET /supplier/orders/{order_id}',
  'POST /supplier/orders/{order_id}/confirm',
  'GET /supplier/documents',
  'POST /supplier/documents',
  'PUT /supplier/products/{sku}',
  'DELETE /supplier/products/{sku}',
  'POST /supplier/products/batch',
  'POST /supplier/products/{sku}/availability',
  'GET /supplier/price-lists',
  'PUT /supplier/price-lists/{price_list_id}/prices',
  'POST /supplier/price-lists/{price_list_id}/buyers',
  'DELETE /supplier/price-lists/{price_list_id}/buyers/{buyer_id}',
  'GET /branches',
  'GET /purchase-types',
  'GET /suppliers',
  'GET /suppliers/{supplier_id}',
  'GET /products',
  'GET /expense-categories',
  'GET /expense-accounts',
  'GET /account-mappings',
  'GET /orders',
  'GET /expenses',
  'POST /expenses',
  'GET /accounting/journal-lines',
  'POST /accounting/exports',
  'GET /accounting/exports/{export_batch_id}',
  'GET /sales/z-reports',
  'POST /sales/z-reports',
  'GET /sales/item-sales',
  'POST /sales/item-sales',
  'GET /inventory-counts',
  'GET /inventory-counts/{count_id}',
  'GET /reports/food-cost',
  'GET /reports/purchases',
  'GET /reports/expenses',
  'GET /reports/pnl',
  'POST /files',
  'GET /files/{file_id}',
  'POST /exports',
  'GET /exports/{export_id}',
  'GET /audit/requests',
  'GET /webhooks',
  'POST /webhooks',
  'GET /webhooks/{webhook_id}',
  'PATCH /webhooks/{webhook_id}',
  'DELETE /webhooks/{webhook_id}',
  'POST /webhooks/{webhook_id}/test',
  'GET /webhooks/{webhook_id}/deliveries',
  'POST /webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
];

/** Part 6.2, every event of the three tables. */
const PART_6_EVENTS = [
  'order.created',
  'order.updated',
  'order.cancelled',
  'document.received',
  'document.disputed',
  'document.approved_for_export',
  'buyer.linked',
  'price_list.assigned',
  'order.status_changed',
  'document.created',
  'document.updated',
  'expense.created',
  'expense.approved',
  'journal_lines.approved_for_export',
  'inventory_count.completed',
  'supplier.updated',
  'card_transaction.imported',
  'api_client.suspended',
  'webhook.disabled',
  'ping',
];

/** Part 4, transcribed: the success statuses of operations whose status is not simply 200. */
const PART_4_SUCCESS: readonly [operation: string, statuses: readonly string[]][] = [
  ['PUT /supplier/products/{sku}', ['200', '201']],
  ['DELETE /supplier/products/{sku}', ['204']],
  ['DELETE /supplier/price-lists/{price_list_id}/buyers/{buyer_id}', ['204']],
  ['DELETE /webhooks/{webhook_id}', ['204']],
  ['POST /exports', ['202']],
  ['POST /webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', ['202']],
  ['POST /webhooks', ['201']],
  ['POST /accounting/exports', ['201']],
];

/** Part 4, transcribed: "Header Idempotency-Key is required". */
const PART_4_IDEMPOTENCY_REQUIRED = [
  'POST /supplier/documents',
  'POST /expenses',
  'POST /accounting/exports',
];

const committed = JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Json;

function operations(doc: Json): { key: string; op: Json }[] {
  return Object.entries(doc['paths'] as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.entries(item)
      .filter((entry): entry is [string, Json] => isJson(entry[1]))
      .map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op })),
  );
}

/** Every schema node below `node`, with its JSON path. */
function* schemaNodes(node: unknown, at: string): Generator<[string, Json]> {
  if (Array.isArray(node)) {
    for (const [index, item] of node.entries()) yield* schemaNodes(item, `${at}/${index}`);
    return;
  }
  if (!isJson(node)) return;
  yield [at, node];
  for (const [key, value] of Object.entries(node)) yield* schemaNodes(value, `${at}/${key}`);
}

describe('docs/openapi.json', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('is the document the schemas generate (regenerate it with `supply-sync contract openapi`)', () => {
    expect(committed).toEqual(JSON.parse(JSON.stringify(buildOpenApiDocument())));
  });

  it('is what `supply-sync contract openapi` prints', async () => {
    let printed = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed += String(chunk);
      return true;
    });
    expect(await runCli(['contract', 'openapi'], {})).toBe(0);
    vi.restoreAllMocks();
    expect(JSON.parse(printed)).toEqual(committed);
  });

  it('covers every endpoint of part 4 with 401, 403, 429 and an X-Request-Id on every answer', () => {
    const present = new Map(operations(committed).map(({ key, op }) => [key, op]));
    expect(PART_4.filter((key) => !present.has(key))).toEqual([]);
    for (const [key, op] of present) {
      const responses = op['responses'] as Record<string, Json>;
      expect(Object.keys(responses), key).toEqual(expect.arrayContaining(['401', '403', '429']));
      for (const [status, response] of Object.entries(responses)) {
        const headers = resolve(committed, response)['headers'];
        expect(isJson(headers) && 'X-Request-Id' in headers, `${key} ${status}`).toBe(true);
      }
    }
  });

  it('answers the success statuses part 4 names', () => {
    const present = new Map(operations(committed).map(({ key, op }) => [key, op]));
    for (const [key, statuses] of PART_4_SUCCESS) {
      const responses = present.get(key)?.['responses'] as Record<string, Json> | undefined;
      const successes = Object.keys(responses ?? {}).filter((status) => status.startsWith('2'));
      expect(successes.sort(), key).toEqual([...statuses].sort());
    }
  });

  it('requires Idempotency-Key where part 4 says so', () => {
    const present = new Map(operations(committed).map(({ key, op }) => [key, op]));
    for (const key of PART_4_IDEMPOTENCY_REQUIRED) {
      const parameters = ((present.get(key)?.['parameters'] as Json[] | undefined) ?? []).map((p) =>
        resolve(committed, p),
      );
      const header = parameters.find((p) => p['in'] === 'header' && p['name'] === 'Idempotency-Key');
      expect(header?.['required'], key).toBe(true);
    }
  });

  it('lets POST /oauth/token be called without a credential, answering a malformed request 400 only', () => {
    const token = operations(committed).find(({ key }) => key === 'POST /oauth/token')?.op;
    expect(token?.['security']).toEqual([]);
    const statuses = Object.keys((token?.['responses'] as Record<string, Json> | undefined) ?? {});
    expect(statuses).toContain('400');
    expect(statuses).not.toContain('422');
  });

  it('admits https webhook URLs only (part 4.16: "http is rejected")', () => {
    const schemas = (committed['components'] as { schemas: Record<string, Json> }).schemas;
    for (const name of ['CreateWebhookRequest', 'PatchWebhookRequest']) {
      const url = (schemas[name]?.['properties'] as Record<string, Json> | undefined)?.['url'];
      expect(url?.['pattern'], name).toBe('^https://');
      const pattern = new RegExp(String(url?.['pattern']));
      expect(pattern.test('https://erp.example.com/hooks'), name).toBe(true);
      expect(pattern.test('http://erp.example.com/hooks'), name).toBe(false);
    }
  });

  it('marks the JSON body size limit (413, not shown in part 8) as gap G22', () => {
    const tooLarge = resolve(committed, { $ref: '#/components/responses/PayloadTooLarge' });
    expect(tooLarge['x-contract-gap']).toBe('G22');
  });

  it('gives every list its paging parameters, with limit 1..200 defaulting to 50', () => {
    const limit = resolve(committed, { $ref: '#/components/parameters/limit' });
    expect(limit['schema']).toMatchObject({ type: 'integer', minimum: 1, maximum: 200, default: 50 });
    for (const { key, op } of operations(committed)) {
      const schema = (op['responses'] as Record<string, Json>)['200'];
      const body = schema === undefined ? undefined : resolve(committed, schema)['content'];
      const ref = isJson(body) ? (body['application/json'] as Json | undefined)?.['schema'] : undefined;
      if (!isJson(ref) || !String(ref['$ref']).endsWith('Page')) continue;
      const names = (op['parameters'] as Json[]).map((p) => resolve(committed, p)['name']);
      expect(names, key).toEqual(expect.arrayContaining(['cursor', 'limit']));
    }
  });

  it('describes every event of part 6.2 as a webhook signed with Service-Signature', () => {
    const webhooks = committed['webhooks'] as Record<string, { post: Json }>;
    expect(Object.keys(webhooks).sort()).toEqual([...PART_6_EVENTS].sort());
    for (const [type, { post }] of Object.entries(webhooks)) {
      const names = (post['parameters'] as Json[]).map((p) => `${String(p['in'])}:${String(p['name'])}`);
      expect(names, type).toContain('header:Service-Signature');
    }
  });

  it('keeps responses open to additions: no closed object, and every enum next to a plain string', () => {
    const requestSchemas = new Set(
      operations(committed).flatMap(({ op }) => {
        const content = isJson(op['requestBody'])
          ? (op['requestBody']['content'] as Record<string, Json>)
          : {};
        return Object.values(content).map((media) => String((media['schema'] as Json | undefined)?.['$ref']));
      }),
    );
    const schemas = (committed['components'] as { schemas: Record<string, unknown> }).schemas;
    const closed: string[] = [];
    const closedEnums: string[] = [];
    for (const [name, schema] of Object.entries(schemas)) {
      if (requestSchemas.has(`#/components/schemas/${name}`)) continue;
      for (const [at, node] of schemaNodes(schema, name)) {
        if (node['additionalProperties'] === false) closed.push(at);
        if (Array.isArray(node['anyOf'])) {
          const branches = node['anyOf'].filter(isJson);
          const hasEnum = branches.some((branch) => Array.isArray(branch['enum']));
          const open = branches.some((branch) => branch['type'] === 'string' && branch['enum'] === undefined);
          if (hasEnum && !open) closedEnums.push(at);
        } else if (Array.isArray(node['enum']) && !at.endsWith('/anyOf/0')) closedEnums.push(at);
      }
    }
    expect(closed).toEqual([]);
    expect(closedEnums).toEqual([]);
  });

  it('marks gap choices with x-contract-gap ids that docs/contract-gaps.md names', () => {
    const gapsText = readFileSync(join(ROOT, 'docs', 'contract-gaps.md'), 'utf8');
    const marks = [...schemaNodes(committed, '')].flatMap(([at, node]) =>
      node['x-contract-gap'] === undefined ? [] : [[at, String(node['x-contract-gap'])] as const],
    );
    expect(marks.length).toBeGreaterThan(20);
    for (const [at, id] of marks) {
      expect(id, at).toMatch(/^G\d+$/);
      expect(gapsText, `${at}: ${id}`).toMatch(new RegExp(`\\b${id}\\b`));
    }
    const marked = new Set(marks.map(([, id]) => id));
    for (const expected of ['G1', 'G2', 'G3', 'G7', 'G8', 'G13', 'G15', 'G16', 'G17', 'G20', 'G30']) {
      expect(marked, expected).toContain(expected);
    }
  });

  it('gives each pattern example a value that matches its pattern', () => {
    for (const [pattern, example] of PATTERN_EXAMPLES) expect(example).toMatch(new RegExp(pattern));
  });
});
