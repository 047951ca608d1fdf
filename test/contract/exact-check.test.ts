import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { lenient, parseLenient, strict, type SchemaName } from '../../src/contract/index.js';
import { exactCheckOf } from '../../src/contract/exact-check.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import {
  exampleCreditNote,
  exampleEvent,
  exampleJournalLine,
  exampleOrder,
  exampleProblem,
} from './fixtures.js';

// The oracle is zod itself: the exact check must say yes exactly when the strict schema accepts a value and
// returns it unchanged, on real items of the sandbox and on every kind of damage done to them.

/** What the exact check must answer for `value`, by zod. */
function zodVerdict(schema: z.ZodType, value: unknown): boolean {
  const result = schema.safeParse(value);
  return result.success && isDeepStrictEqual(result.data, value);
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every place in a value: [] is the value itself, ['lines', 0, 'sku'] a leaf. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const paths = [prefix];
  if (Array.isArray(value)) value.forEach((item, index) => paths.push(...pathsOf(item, [...prefix, index])));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) paths.push(...pathsOf(item, [...prefix, key]));
  }
  return paths;
}

function at(value: Json, path: readonly (string | number)[]): Json {
  let current: Json = value;
  for (const step of path) current = (current as Record<string | number, Json>)[step] as Json;
  return current;
}

/** A copy of `value` with the thing at `path` replaced by what `change` makes of it (undefined deletes it). */
function changed(
  value: Json,
  path: readonly (string | number)[],
  change: (old: Json) => Json | undefined,
): Json {
  const copy = structuredClone(value);
  if (path.length === 0) return change(copy) ?? null;
  const owner = at(copy, path.slice(0, -1)) as Record<string | number, Json> | Json[];
  const last = path[path.length - 1] as string | number;
  const next = change((owner as Record<string | number, Json>)[last] as Json);
  if (next !== undefined) (owner as Record<string | number, Json>)[last] = next;
  else if (Array.isArray(owner)) owner.splice(last as number, 1);
  else delete (owner as Record<string, Json>)[last];
  return copy;
}

/** Near misses of a value: the kinds of damage a schema check has to notice. */
function damage(old: Json, pick: number, other: Json): Json | undefined {
  const options: (Json | undefined)[] = [undefined, null, other, '', 'x', 0, -1, 1.5, 2 ** 53, true, [], {}];
  if (typeof old === 'string') {
    options.push(
      `${old} `,
      ` ${old}`,
      old.slice(1),
      `${old}0`,
      old.toUpperCase(),
      `${old}\n`,
      '0.00',
      '-0.00',
    );
  }
  if (typeof old === 'number') options.push(old + 1, -old, old + 0.5, String(old));
  if (Array.isArray(old)) options.push([...old, other], [...old, ...old], old.slice(1));
  if (old !== null && typeof old === 'object' && !Array.isArray(old)) {
    const text = JSON.stringify(old);
    const withProto = JSON.parse(
      text === '{}' ? '{"__proto__":1}' : `{"__proto__":1,${text.slice(1)}`,
    ) as Json;
    options.push({ ...old, extra_field: other }, withProto, { ...old, constructor: 1 });
  }
  return options[pick % options.length];
}

interface Sample {
  schema: SchemaName;
  value: Json;
}

/** Lists of the sandbox's demo data and the schema each item is read with. */
const SANDBOX_LISTS: { path: string; key: 'buyer' | 'supplier'; schema: SchemaName }[] = [
  { path: '/v2/supplier/orders', key: 'supplier', schema: 'Order' },
  { path: '/v2/orders', key: 'buyer', schema: 'Order' },
  { path: '/v2/documents', key: 'buyer', schema: 'Document' },
  { path: '/v2/expenses', key: 'buyer', schema: 'Expense' },
  { path: '/v2/accounting/journal-lines', key: 'buyer', schema: 'JournalLine' },
  { path: '/v2/branches', key: 'buyer', schema: 'Branch' },
  { path: '/v2/purchase-types', key: 'buyer', schema: 'PurchaseType' },
  { path: '/v2/expense-categories', key: 'buyer', schema: 'ExpenseCategory' },
  { path: '/v2/expense-accounts', key: 'buyer', schema: 'ExpenseAccount' },
  { path: '/v2/account-mappings', key: 'buyer', schema: 'AccountMapping' },
  { path: '/v2/inventory-counts', key: 'buyer', schema: 'InventoryCount' },
];

describe('exactCheckOf, held to zod', () => {
  let sandbox: RunningSandbox;
  const samples: Sample[] = [
    { schema: 'Order', value: exampleOrder() as Json },
    { schema: 'Document', value: exampleCreditNote() as Json },
    { schema: 'JournalLine', value: exampleJournalLine() as Json },
    { schema: 'Problem', value: exampleProblem() as Json },
    { schema: 'OrderEventData', value: exampleEvent()['data'] as Json },
  ];

  beforeAll(async () => {
    sandbox = await startSandbox();
    await sandbox.control.action('buyer_send_order', { count: 20 });
    await sandbox.control.action('approve_journal_lines', { count: 30 });
    for (const list of SANDBOX_LISTS) {
      const response = await fetch(`${sandbox.origin}${list.path}?limit=20`, {
        headers: { authorization: `Bearer ${sandbox.keys[list.key]}` },
      });
      expect(response.status, list.path).toBe(200);
      const page = (await response.json()) as { data: Json[] };
      for (const value of page.data) samples.push({ schema: list.schema, value });
    }
  });

  afterAll(async () => {
    await sandbox.close();
  });

  it('has a check for the resources the pull reads, and none for a stripping or passthrough object', () => {
    for (const name of [
      'Order',
      'Document',
      'JournalLine',
      'Product',
      'CatalogProduct',
      'Expense',
    ] as const) {
      expect(exactCheckOf(strict[name]), name).not.toBeNull();
    }
    expect(exactCheckOf(z.object({ a: z.string() }))).toBeNull();
    expect(exactCheckOf(z.looseObject({ a: z.string() }))).toBeNull();
    expect(exactCheckOf(z.strictObject({ a: z.string().transform((text) => text.length) }))).toBeNull();
    expect(exactCheckOf(z.strictObject({ a: z.string().default('') }))).toBeNull();
  });

  it('accepts every item of the sandbox and of the contract examples, as zod does', () => {
    const schemas = new Set(samples.map((sample) => sample.schema));
    expect([...schemas]).toEqual(expect.arrayContaining(['Order', 'Document', 'JournalLine', 'Expense']));
    expect(samples.length).toBeGreaterThan(60);
    for (const { schema, value } of samples) {
      expect(zodVerdict(strict[schema], value), `${schema} sample is valid`).toBe(true);
      expect(exactCheckOf(strict[schema])?.(value), schema).toBe(true);
    }
  });

  it('agrees with zod on damaged items: one to three changes anywhere', () => {
    const sample = fc.constantFrom(...samples);
    const change = fc.tuple(fc.nat(), fc.nat(), fc.jsonValue() as fc.Arbitrary<Json>);
    let rejected = 0;
    fc.assert(
      fc.property(sample, fc.array(change, { minLength: 1, maxLength: 3 }), ({ schema, value }, changes) => {
        let damaged = value;
        for (const [where, how, other] of changes) {
          const paths = pathsOf(damaged);
          const path = paths[where % paths.length] ?? [];
          damaged = changed(damaged, path, (old) => damage(old, how, other));
        }
        const expected = zodVerdict(strict[schema], damaged);
        if (!expected) rejected += 1;
        expect(exactCheckOf(strict[schema])?.(damaged), JSON.stringify(damaged).slice(0, 300)).toBe(expected);
      }),
      { numRuns: 3000, seed: 20261125 },
    );
    // The damage must mostly be caught, or this test would only show that both accept.
    expect(rejected).toBeGreaterThan(1500);
  });

  it('sends what zod would change or refine to zod: a URL with spaces, a refined amount, a __proto__ key', () => {
    const withUrl = z.strictObject({ url: z.url() });
    expect(exactCheckOf(withUrl)?.({ url: 'https://example.com/a' })).toBe(true);
    // zod accepts it and returns it trimmed: not the value given, so not exact.
    expect(withUrl.safeParse({ url: ' https://example.com/a ' }).success).toBe(true);
    expect(exactCheckOf(withUrl)?.({ url: ' https://example.com/a ' })).toBe(false);
    const positive = z.strictObject({ price: z.string().refine((text) => Number(text) > 0) });
    expect(exactCheckOf(positive)?.({ price: '1.00' })).toBe(true);
    expect(exactCheckOf(positive)?.({ price: '0.00' })).toBe(false);
    const record = z.strictObject({ changes: z.record(z.string(), z.number()) });
    expect(exactCheckOf(record)?.({ changes: { a: 1 } })).toBe(true);
    expect(exactCheckOf(record)?.(JSON.parse('{"changes":{"__proto__":1}}'))).toBe(false);
  });

  it('counts string lengths in code points, as zod does', () => {
    const astral = '\u{1F600}';
    for (const schema of [
      z.strictObject({ code: z.string().min(2) }),
      z.strictObject({ code: z.string().length(2) }),
      z.strictObject({ code: z.string().max(1) }),
      z.strictObject({ code: z.string().length(3) }),
    ]) {
      for (const code of [astral, `${astral}a`, `${astral}${astral}`, 'ab', 'a', '\uD800', '\uD800a']) {
        expect(exactCheckOf(schema)?.({ code }), code).toBe(zodVerdict(schema, { code }));
      }
    }
  });

  it('leaves a union to zod when an earlier option accepts the value but changes it', () => {
    const cases: [z.ZodType, unknown][] = [
      [z.union([z.url(), z.string()]), ' https://a.example/'],
      [z.union([z.string().trim(), z.string()]), ' x '],
      [z.union([z.record(z.string(), z.number()), z.unknown()]), JSON.parse('{"__proto__":1}')],
    ];
    for (const [schema, value] of cases) {
      expect(zodVerdict(schema, value)).toBe(false);
      expect(exactCheckOf(schema)?.(value)).toBe(false);
    }
    const either = z.union([z.string().regex(/^[0-9]+$/), z.null()]);
    expect(exactCheckOf(either)?.(null)).toBe(true);
    expect(exactCheckOf(either)?.('12')).toBe(true);
    expect(exactCheckOf(either)?.('x')).toBe(false);
  });

  it('has no check for what it cannot mirror safely', () => {
    // Fields named like Object.prototype's members: zod reads inherited ones as present, and drops __proto__.
    expect(exactCheckOf(z.strictObject({ constructor: z.unknown() }))).toBeNull();
    expect(exactCheckOf(z.strictObject({ toString: z.number().optional(), a: z.number() }))).toBeNull();
    expect(exactCheckOf(z.strictObject({ ['__proto__']: z.number() }))).toBeNull();
    // A check on an object could change it in place, before the check says no.
    const growing = z
      .strictObject({ xs: z.array(z.number()) })
      .overwrite((value) => ({ ...value, xs: [...value.xs, 0] }))
      .refine((value) => value.xs.length < 3);
    expect(exactCheckOf(growing)).toBeNull();
    // A lazy part it cannot mirror refuses every value instead of throwing.
    const lazy = z.strictObject({ a: z.lazy(() => z.string().transform((text) => text.length)) });
    expect(exactCheckOf(lazy)?.({ a: 'x' })).toBe(false);
  });

  it('leaves parseLenient as it was: drift is still reported, clean items come back equal', () => {
    const order = exampleOrder();
    expect(parseLenient(lenient.Order, order)).toEqual({ ok: true, value: order, drift: [] });
    const drifted = { ...order, status: 'on_the_moon', added: 1 };
    const result = parseLenient(lenient.Order, drifted);
    expect(result.ok && result.drift.map((item) => item.kind)).toEqual([
      'unknown_enum_value',
      'unknown_field',
    ]);
  });
});
