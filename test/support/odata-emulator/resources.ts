import { readBatch, type BatchAnswer, type BatchRequest } from './batch.js';
import { typeOf, type CollectionModel, type PropertyModel } from './model.js';
import { ordered, pageOf, type ServerPaging } from './paging.js';
import { ErpStore, ODataFault, type Entity } from './store.js';

interface Route {
  readonly set: string;
  readonly key: Record<string, unknown> | null;
  readonly segment: string | null;
}

export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** `(5)`, `('SO1')`, `(IVNUM='T1',IVTYPE='A')` against the type's key names. */
function parseKey(text: string, keyNames: readonly string[]): Record<string, unknown> {
  const literal = (raw: string): unknown => {
    if (raw.startsWith("'") && raw.endsWith("'")) return raw.slice(1, -1).replaceAll("''", "'");
    if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
    throw new ODataFault(400, `key literal ${raw} is malformed`);
  };
  const pieces = [...text.matchAll(/(?:([A-Za-z_]\w*)=)?('(?:[^']|'')*'|[^,]+)/g)];
  if (pieces.length === 1 && pieces[0]?.[1] === undefined && keyNames.length === 1) {
    return { [keyNames[0] ?? '']: literal(pieces[0]?.[2] ?? '') };
  }
  const key: Record<string, unknown> = {};
  for (const piece of pieces) key[piece[1] ?? ''] = literal(piece[2] ?? '');
  if (keyNames.some((name) => !(name in key)))
    throw new ODataFault(400, `the key needs ${keyNames.join(', ')}`);
  return key;
}

/** The key predicate of an entity, as a `$n` reference in a change set resolves to. */
function keyText(store: ErpStore, set: string, entity: Entity): string {
  const parts = store
    .typeOfSet(set)
    .key.map(
      (name) =>
        `${name}=${typeof entity[name] === 'number' ? String(entity[name]) : `'${String(entity[name])}'`}`,
    );
  return `${set}(${parts.join(',')})`;
}

/**
 * The entity sets of the emulated service over HTTP verbs: reads with $filter, $select, $expand, $top, $skip and
 * server paging; creates (with lines), related creates, PATCH, bound actions; and $batch change sets applied whole
 * or not at all.
 */
export class Resources {
  constructor(
    private readonly store: ErpStore,
    private readonly paging: ServerPaging,
    private readonly rollsBack: boolean,
    private readonly errorBody: (message: string) => unknown,
    private readonly inspect: ((request: BatchRequest) => void) | undefined,
  ) {}

  route(path: string): Route {
    const match = /^([A-Za-z_]\w*)(?:\(([^)]*)\))?(?:\/([A-Za-z_]\w*))?$/.exec(path);
    if (match === null) throw new ODataFault(404, `Resource not found for the segment '${path}'`);
    const set = match[1] ?? '';
    const type = this.store.typeOfSet(set);
    return {
      set,
      key: match[2] === undefined ? null : parseKey(match[2], type.key),
      segment: match[3] ?? null,
    };
  }

  /** A read; `numbersAsStrings` for a client that asked IEEE754Compatible=true (see #answered). */
  read(target: URL, path: string, numbersAsStrings = false): unknown {
    const { set, key, segment } = this.route(path);
    const select =
      target.searchParams
        .get('$select')
        ?.split(',')
        .map((name) => name.trim()) ?? null;
    const expand = target.searchParams.get('$expand');
    this.#checkOptions(set, select, expand);
    const shape = (entity: Entity) => this.#shaped(set, entity, { select, expand, numbersAsStrings });
    if (key !== null && segment === null) return shape(this.store.find(set, key));
    const params = target.searchParams;
    const type = this.store.typeOfSet(set);
    const known = (name: string) => type.properties.some((property) => property.name === name);
    const rows = ordered(
      this.store.query(set, params.get('$filter') ?? undefined),
      params.get('$orderby'),
      known,
    );
    const page = pageOf(rows, params, this.paging);
    const value = page.rows.map(shape);
    if (page.nextSkip === null) return { value };
    const next = new URLSearchParams(params);
    next.set('$skip', String(page.nextSkip));
    return { value, '@odata.nextLink': `${set}?${next.toString().replaceAll('+', '%20')}` };
  }

  write(method: string, path: string, body: string): Answer {
    const entity = (body === '' ? {} : JSON.parse(body)) as Entity;
    const { set, key, segment } = this.route(path);
    if (method === 'PATCH' && key !== null && segment === null) {
      this.store.patch(set, key, entity);
      return { status: 204, body: '' };
    }
    if (method !== 'POST') throw new ODataFault(405, `${method} is not supported on ${path}`);
    if (key === null) return { status: 201, body: this.store.create(set, entity) };
    if (segment === null) throw new ODataFault(405, `POST is not supported on ${path}`);
    if (this.store.typeOfSet(set).collections.some((collection) => collection.name === segment)) {
      return { status: 201, body: this.store.createChild(set, key, segment, entity) };
    }
    this.store.action(set, key, segment);
    return { status: 204, body: '' };
  }

  /**
   * Every change set of a $batch body. SAP Business One: each change set applied whole or not at all ("Working
   * with SAP Business One Service Layer", batch operations: a change set is one transaction). Priority: each
   * request applied as it comes and kept when a later one fails (_restapi/6.restModify.md "Performing Batch
   * Operations": "batch operations do not support rollback, be it of the entire batch or individual atomicity
   * groups"); the requests after the failed one are not applied (choice: the guide is silent on them, and
   * odata.continue-on-error=false in its example asks the service to stop; choice E3 in connectors/odata/README.md).
   */
  batch(body: string, contentType: string): Array<{ answers: BatchAnswer[]; failed: boolean }> {
    return readBatch(body, contentType).map((requests) => this.#changeSet(requests));
  }

  #changeSet(requests: readonly BatchRequest[]): { answers: BatchAnswer[]; failed: boolean } {
    const saved = this.store.snapshot();
    const created = new Map<string, string>();
    const answers: BatchAnswer[] = [];
    for (const request of requests) {
      this.inspect?.(request);
      const path = request.path.replace(/^\$(\d+)/, (whole, id: string) => created.get(id) ?? whole);
      try {
        const answer = this.write(request.method, path, request.body);
        if (request.contentId !== null && answer.status === 201) {
          created.set(request.contentId, keyText(this.store, this.route(path).set, answer.body as Entity));
        }
        answers.push({ ...answer, contentId: request.contentId });
      } catch (error) {
        if (this.rollsBack) this.store.restore(saved);
        const fault = error instanceof ODataFault ? error : new ODataFault(400, String(error));
        answers.push({
          status: fault.status,
          body: this.errorBody(fault.message),
          contentId: request.contentId,
        });
        return { answers, failed: true };
      }
    }
    return { answers, failed: false };
  }

  #checkOptions(set: string, select: string[] | null, expand: string | null): void {
    const type = this.store.typeOfSet(set);
    for (const name of select ?? []) {
      if (!type.properties.some((p) => p.name === name) && !type.collections.some((c) => c.name === name)) {
        throw new ODataFault(400, `Property '${name}' of '${type.name}' is invalid`);
      }
    }
    if (expand !== null && !type.collections.some((c) => c.name === expand && c.kind === 'navigation')) {
      throw new ODataFault(400, `$expand: ${expand} is not a navigation property of ${type.name}`);
    }
  }

  /**
   * A value as the service writes it in an answer: dates in the vendor's form (ErpModel.dateSuffix); Edm.Decimal
   * and Edm.Int64 as JSON numbers, or as strings for a client that asked IEEE754Compatible=true (OData JSON Format
   * 4.0, section 3.2 "Controlling the Representation of Numbers").
   */
  #answered(property: PropertyModel, value: unknown, numbersAsStrings: boolean): unknown {
    const suffix = this.store.model.dateSuffix;
    if (property.type === 'Edm.Date' && typeof value === 'string' && suffix !== undefined)
      return `${value}${suffix}`;
    const wide = property.type === 'Edm.Decimal' || property.type === 'Edm.Int64';
    return wide && numbersAsStrings && typeof value === 'number' ? String(value) : value;
  }

  /** The items of a line collection, each value as #answered writes it. */
  #items(collection: CollectionModel, items: unknown, numbersAsStrings: boolean): unknown {
    if (!Array.isArray(items)) return items ?? [];
    const type = typeOf(this.store.model, collection.itemType);
    return (items as Entity[]).map((item) =>
      Object.fromEntries(
        Object.entries(item).map(([name, value]) => {
          const property = type.properties.find((candidate) => candidate.name === name);
          return [name, property === undefined ? value : this.#answered(property, value, numbersAsStrings)];
        }),
      ),
    );
  }

  /** An entity as a read returns it: $select applied, navigation collections only when expanded. */
  #shaped(
    set: string,
    entity: Entity,
    options: { select: string[] | null; expand: string | null; numbersAsStrings: boolean },
  ): Entity {
    const { select, expand, numbersAsStrings } = options;
    const type = this.store.typeOfSet(set);
    const out: Entity = {};
    for (const property of type.properties) {
      const wanted = select === null || select.includes(property.name) || type.key.includes(property.name);
      if (wanted)
        out[property.name] = this.#answered(property, entity[property.name] ?? null, numbersAsStrings);
    }
    for (const collection of type.collections) {
      const wanted =
        collection.kind === 'complex'
          ? select === null || select.includes(collection.name)
          : expand === collection.name;
      if (wanted) out[collection.name] = this.#items(collection, entity[collection.name], numbersAsStrings);
    }
    return out;
  }
}
