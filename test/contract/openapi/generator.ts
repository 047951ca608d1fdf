/**
 * Generates requests from the OpenAPI document alone: for every operation and caller, valid requests (all
 * parameters and fields, or only the required ones; values from openapi-sampler and the schemas' enums and
 * bounds, chosen by a seeded PRNG) and invalid ones (a mutation the document forbids).
 */
import { sample } from 'openapi-sampler';
import {
  type DocOperation,
  type DocParameter,
  type Json,
  isJson,
  objectShape,
  resolve,
} from './document-walk.js';
import type { Random } from './random.js';

export type CallerName = 'supplier' | 'buyer';

export type RequestBody =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; value: Record<string, string> }
  | { kind: 'multipart'; fields: Record<string, string>; file?: { name: string; content: string } };

export interface RequestCase {
  operationId: string;
  caller: CallerName;
  method: string;
  /** Below /v2, with the query string. */
  target: string;
  headers: Record<string, string>;
  body?: RequestBody;
  intent: 'valid' | 'invalid';
  /** What was made invalid, or which valid variant this is. */
  variant: string;
}

/** Real ids by path parameter name, discovered from the sandbox before the run (unknown ones fall back). */
export type KnownIds = Readonly<Record<string, readonly string[]>>;

interface Draft {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: RequestBody;
}

function enumValues(doc: Json, schema: Json): string[] | undefined {
  const resolved = resolve(doc, schema);
  if (Array.isArray(resolved['enum'])) return resolved['enum'].map(String);
  if (Array.isArray(resolved['anyOf'])) {
    for (const branch of resolved['anyOf']) {
      const values = isJson(branch) ? enumValues(doc, branch) : undefined;
      if (values !== undefined) return values;
    }
  }
  return undefined;
}

function sampled(doc: Json, schema: Json, requiredOnly: boolean): unknown {
  return sample(schema as never, { skipReadOnly: true, skipNonRequired: requiredOnly, quiet: true }, doc);
}

const day = (random: Random) =>
  `2026-${String(random.int(1, 11)).padStart(2, '0')}-${String(random.int(1, 28)).padStart(2, '0')}`;

/** A valid value for a query or path parameter, varied by the seed where the schema allows. */
function parameterValue(doc: Json, param: DocParameter, random: Random, ids: KnownIds): string {
  const known = ids[param.name];
  if (param.in === 'path' && known !== undefined && known.length > 0) return random.pick(known);
  const schema = param.schema;
  if (schema['type'] === 'array' && isJson(schema['items'])) {
    const values = enumValues(doc, schema['items']) ?? ['value'];
    const count = random.int(1, Math.min(3, values.length));
    return Array.from({ length: count }, () => random.pick(values)).join(',');
  }
  const values = enumValues(doc, schema);
  if (values !== undefined) return random.pick(values);
  if (schema['type'] === 'integer') {
    const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : 0;
    const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : min + 100;
    return String(random.int(min, max));
  }
  if (schema['format'] === 'date') return day(random);
  if (schema['format'] === 'date-time') return `${day(random)}T0${random.int(0, 9)}:00:00Z`;
  const value = sampled(doc, schema, false);
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A value of another JSON type than the schema allows. */
function wrongTypeFor(schema: Json): unknown {
  switch (schema['type']) {
    case 'boolean':
      return 'yes';
    case 'array':
      return 'not a list';
    case 'integer':
    case 'number':
      return 'twelve';
    case 'object':
      return 'not an object';
    default:
      return 12345;
  }
}

function fillPath(path: string, values: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_match, name: string) =>
    encodeURIComponent(values[name] ?? 'unknown'),
  );
}

function targetOf(op: DocOperation, draft: Draft): string {
  const query = new URLSearchParams(draft.query).toString();
  return `${fillPath(op.path, draft.path)}${query === '' ? '' : `?${query}`}`;
}

export class TrafficGenerator {
  private counter = 0;

  constructor(
    private readonly doc: Json,
    private readonly random: Random,
    private readonly ids: KnownIds,
    private readonly runId: string,
  ) {}

  private draft(op: DocOperation, requiredOnly: boolean): Draft {
    const draft: Draft = { path: {}, query: {}, headers: {} };
    for (const param of op.parameters) {
      if (param.in === 'path')
        draft.path[param.name] = parameterValue(this.doc, param, this.random, this.ids);
      // A cursor only means something when the sandbox issued it; paging is driven by the scenario instead.
      if (param.in === 'query' && param.name !== 'cursor' && (param.required || !requiredOnly)) {
        draft.query[param.name] = parameterValue(this.doc, param, this.random, this.ids);
      }
      if (param.in === 'header' && param.name === 'Idempotency-Key' && (param.required || !requiredOnly)) {
        this.counter += 1;
        draft.headers['Idempotency-Key'] = `${this.runId}-${this.counter}`;
      }
    }
    if (op.jsonBody !== undefined && (op.bodyRequired || !requiredOnly)) {
      draft.body = { kind: 'json', value: sampled(this.doc, op.jsonBody, requiredOnly) };
    } else if (op.mediaTypes.includes('multipart/form-data')) {
      draft.body = {
        kind: 'multipart',
        fields: { purpose: this.random.pick(['document_attachment', 'expense_attachment', 'product_image']) },
        file: { name: 'note.txt', content: `generated ${this.runId}` },
      };
    }
    return draft;
  }

  private build(
    op: DocOperation,
    caller: CallerName,
    draft: Draft,
    intent: RequestCase['intent'],
    variant: string,
  ) {
    return {
      operationId: op.operationId,
      caller,
      method: op.method,
      target: targetOf(op, draft),
      headers: draft.headers,
      ...(draft.body === undefined ? {} : { body: draft.body }),
      intent,
      variant,
    } satisfies RequestCase;
  }

  /** Two valid requests: every parameter and field, then only the required ones. */
  valid(op: DocOperation, caller: CallerName): RequestCase[] {
    return [
      this.build(op, caller, this.draft(op, false), 'valid', 'all-fields'),
      this.build(op, caller, this.draft(op, true), 'valid', 'required-only'),
    ];
  }

  /** Every mutation the document forbids that applies to this operation. */
  private mutations(op: DocOperation): { name: string; apply(draft: Draft): void }[] {
    const out: { name: string; apply(draft: Draft): void }[] = [];
    const has = (name: string) => op.parameters.some((p) => p.in === 'query' && p.name === name);
    if (has('limit')) {
      out.push({
        name: 'limit out of range',
        apply: (d) => (d.query['limit'] = this.random.pick(['0', '201', '-5'])),
      });
      out.push({
        name: 'limit not an integer',
        apply: (d) => (d.query['limit'] = this.random.pick(['ten', '2.5'])),
      });
    }
    for (const name of ['from', 'to', 'updated_since']) {
      if (has(name)) out.push({ name: `${name} not a date`, apply: (d) => (d.query[name] = 'yesterday') });
    }
    const idempotency = op.parameters.find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    if (idempotency !== undefined) {
      out.push({
        name: 'Idempotency-Key over 128 characters',
        apply: (d) => (d.headers['Idempotency-Key'] = 'k'.repeat(129)),
      });
      if (idempotency.required)
        out.push({ name: 'Idempotency-Key missing', apply: (d) => delete d.headers['Idempotency-Key'] });
    }
    const sku = op.parameters.find((p) => p.in === 'path' && p.name === 'sku');
    if (sku !== undefined)
      out.push({ name: 'sku over 64 characters', apply: (d) => (d.path['sku'] = 'S'.repeat(65)) });
    if (op.jsonBody !== undefined) {
      const shape = objectShape(this.doc, op.jsonBody);
      const required = shape.required;
      if (required.length > 0) {
        out.push({
          name: 'required field missing',
          apply: (d) => {
            const value = d.body?.kind === 'json' && isJson(d.body.value) ? d.body.value : {};
            delete value[this.random.pick(required)];
            d.body = { kind: 'json', value };
          },
        });
      }
      const names = Object.keys(shape.properties);
      if (names.length > 0) {
        out.push({
          name: 'field of the wrong type',
          apply: (d) => {
            const value = d.body?.kind === 'json' && isJson(d.body.value) ? d.body.value : {};
            const name = this.random.pick(names);
            const schema = resolve(this.doc, shape.properties[name]);
            value[name] = wrongTypeFor(schema);
            d.body = { kind: 'json', value };
          },
        });
      }
      if (shape.closed) {
        out.push({
          name: 'unknown field',
          apply: (d) => {
            const value = d.body?.kind === 'json' && isJson(d.body.value) ? d.body.value : {};
            d.body = { kind: 'json', value: { ...value, unexpected_field: 1 } };
          },
        });
      }
      if (op.bodyRequired)
        out.push({ name: 'not a JSON object', apply: (d) => (d.body = { kind: 'json', value: [1, 2] }) });
    }
    return out;
  }

  /** Up to `count` invalid requests, each with one seeded mutation the document forbids. */
  invalid(op: DocOperation, caller: CallerName, count: number): RequestCase[] {
    const mutations = this.mutations(op);
    const out: RequestCase[] = [];
    for (let i = 0; i < count && mutations.length > 0; i += 1) {
      const mutation = mutations.splice(this.random.int(0, mutations.length - 1), 1)[0];
      if (mutation === undefined) break;
      const draft = this.draft(op, false);
      mutation.apply(draft);
      out.push(this.build(op, caller, draft, 'invalid', mutation.name));
    }
    return out;
  }
}
