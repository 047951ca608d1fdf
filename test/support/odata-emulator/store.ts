import { parseFilter } from './filter.js';
import { typeOf, type CollectionModel, type ErpModel, type PropertyModel, type TypeModel } from './model.js';

export type Entity = Record<string, unknown>;

/** An answer the emulated service gives instead of data: an HTTP status and an OData error message. */
export class ODataFault extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const VAT_RATE = 0.18;
const round2 = (value: number) => Math.round(value * 100) / 100;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Numbering as the vendors show it: SAP numbers per document series, Priority prefixes per form. */
const NUMBERING: Readonly<Record<string, { key: string; format: (n: number) => string | number }>> = {
  DocNum: { key: 'DocNum', format: (n) => n },
  ORDNAME: { key: 'ORDNAME', format: (n) => `SO26${String(n).padStart(6, '0')}` },
  IVNUM: { key: 'IVNUM', format: (n) => `IV26${String(n).padStart(6, '0')}` },
  DOCNO: { key: 'DOCNO', format: (n) => `GR26${String(n).padStart(6, '0')}` },
};

/** The data of an emulated ERP: entity sets of plain objects, numbered and validated as the ERP does. */
export class ErpStore {
  #data: Record<string, Entity[]> = {};
  #counters: Record<string, number> = {};

  /** The service's clock (UTC), for update stamps; a test may set it. */
  clock: () => Date = () => new Date();

  constructor(readonly model: ErpModel) {
    for (const set of model.entitySets) this.#data[set.name] = [];
  }

  /** A copy of the whole state, restored when a change set fails. */
  snapshot(): unknown {
    return structuredClone({ data: this.#data, counters: this.#counters });
  }

  restore(snapshot: unknown): void {
    const saved = snapshot as { data: Record<string, Entity[]>; counters: Record<string, number> };
    this.#data = structuredClone(saved.data);
    this.#counters = structuredClone(saved.counters);
  }

  seed(set: string, entities: ReadonlyArray<Record<string, unknown>>): void {
    this.#rows(set).push(...entities.map((entity) => structuredClone(entity)));
  }

  /** Everything in a set (tests read the ERP's side with it). */
  all(set: string): Entity[] {
    return structuredClone(this.#rows(set));
  }

  typeOfSet(set: string): TypeModel {
    const model = this.model.entitySets.find((candidate) => candidate.name === set);
    if (model === undefined) throw new ODataFault(404, `Resource not found for the segment '${set}'`);
    return typeOf(this.model, model.type);
  }

  query(set: string, filter: string | undefined): Entity[] {
    const type = this.typeOfSet(set);
    const known = (path: string) => this.#knownPath(type, path);
    const typeOfPath = (path: string) => type.properties.find((property) => property.name === path)?.type;
    const predicate = filter === undefined ? () => true : this.#predicate(filter, known, typeOfPath);
    return this.#rows(set).filter(predicate);
  }

  find(set: string, key: Readonly<Record<string, unknown>>): Entity {
    const type = this.typeOfSet(set);
    const found = this.#rows(set).find((entity) => type.key.every((name) => entity[name] === key[name]));
    if (found === undefined) throw new ODataFault(404, `No matching records found (ODBC -2028) in ${set}`);
    return found;
  }

  create(set: string, body: Entity): Entity {
    const type = this.typeOfSet(set);
    const entity = this.#validated(type, body, set);
    for (const collection of type.collections) {
      const items = body[collection.name];
      if (items === undefined && collection.required === true) {
        throw new ODataFault(400, `${set}: at least one ${collection.name} item is required`);
      }
      entity[collection.name] = this.#items(collection, items, set);
    }
    this.#checkReferences(set, entity);
    this.#fillLines(set, entity);
    this.#copyFromBase(entity);
    this.#assign(set, type, entity);
    this.#rows(set).push(entity);
    return entity;
  }

  /** A document created from another copies the user fields it does not set (ErpModel.baseDocuments). */
  #copyFromBase(entity: Entity): void {
    const base = this.model.baseDocuments;
    if (base === undefined) return;
    const lines = (entity[base.lines] as Entity[] | undefined) ?? [];
    const line = lines.find((candidate) => typeof candidate[base.entryProperty] === 'number');
    const baseSet = line === undefined ? undefined : base.sets[Number(line[base.typeProperty])];
    if (line === undefined || baseSet === undefined) return;
    const from = this.#rows(baseSet).find((row) => row[base.entryKey] === line[base.entryProperty]);
    if (from === undefined)
      throw new ODataFault(400, `${baseSet}: base document ${String(line[base.entryProperty])} not found`);
    for (const [name, value] of Object.entries(from)) {
      if (name.startsWith('U_') && (entity[name] === undefined || entity[name] === null))
        entity[name] = value;
    }
  }

  createChild(
    set: string,
    key: Readonly<Record<string, unknown>>,
    collectionName: string,
    body: Entity,
  ): Entity {
    const type = this.typeOfSet(set);
    const collection = type.collections.find((candidate) => candidate.name === collectionName);
    if (collection === undefined)
      throw new ODataFault(404, `Resource not found for the segment '${collectionName}'`);
    const parent = this.find(set, key);
    const [item] = this.#items(collection, [body], set);
    const before = (parent[collectionName] as Entity[] | undefined) ?? [];
    const items =
      item === undefined ? before : [...before, { ...item, ...this.#lineNumber(collection, before.length) }];
    // A refused line leaves the entity as it was: the checks run on a copy.
    const candidate = { ...parent, [collectionName]: items };
    this.#checkReferences(set, candidate);
    Object.assign(parent, candidate);
    this.#fillLines(set, parent);
    this.#total(parent);
    return items[items.length - 1] ?? {};
  }

  patch(set: string, key: Readonly<Record<string, unknown>>, body: Entity): void {
    const type = this.typeOfSet(set);
    const entity = this.find(set, key);
    const changes = this.#validated(type, body, set, false);
    for (const [name, value] of Object.entries(changes)) {
      if (type.key.includes(name))
        throw new ODataFault(400, `${set}: the key property ${name} cannot change`);
      entity[name] = value;
    }
    this.#stamp(type, entity);
  }

  /** UpdateDate and UpdateTime, where the type has them, set to the clock on every create and change. */
  #stamp(type: TypeModel, entity: Entity): void {
    if (!type.properties.some((property) => property.name === 'UpdateDate')) return;
    const iso = this.clock().toISOString();
    entity['UpdateDate'] = iso.slice(0, 10);
    entity['UpdateTime'] = iso.slice(11, 19);
  }

  action(set: string, key: Readonly<Record<string, unknown>>, name: string): void {
    const type = this.typeOfSet(set);
    if (!(this.model.actions[name] ?? []).includes(type.name)) {
      throw new ODataFault(404, `Resource not found for the segment '${name}'`);
    }
    const entity = this.find(set, key);
    if (entity['Cancelled'] === 'tYES' || entity['DocumentStatus'] === 'bost_Close') {
      throw new ODataFault(400, 'Document is already closed or cancelled');
    }
    if (name === 'Cancel') entity['Cancelled'] = 'tYES';
    entity['DocumentStatus'] = 'bost_Close';
  }

  #rows(set: string): Entity[] {
    const rows = this.#data[set];
    if (rows === undefined) throw new ODataFault(404, `Resource not found for the segment '${set}'`);
    return rows;
  }

  #predicate(filter: string, known: (path: string) => boolean, typeOf: (path: string) => string | undefined) {
    try {
      return parseFilter(filter, known, typeOf);
    } catch (error) {
      throw new ODataFault(400, error instanceof Error ? error.message : String(error));
    }
  }

  #knownPath(type: TypeModel, path: string): boolean {
    return type.properties.some((property) => property.name === path);
  }

  #validated(type: TypeModel, body: Entity, set: string, creating = true): Entity {
    const entity: Entity = {};
    for (const [name, value] of Object.entries(body)) {
      if (type.collections.some((collection) => collection.name === name)) continue;
      const property = type.properties.find((candidate) => candidate.name === name);
      if (property === undefined)
        throw new ODataFault(400, `Property '${name}' of '${type.name}' is invalid`);
      if (property.assigned === true && !type.key.includes(name)) continue;
      entity[name] = checkedValue(property, value, set);
    }
    if (creating) {
      for (const property of type.properties) {
        const value = entity[property.name];
        if (property.required === true && (value === undefined || value === null || value === '')) {
          throw new ODataFault(400, `${set}: ${type.name}.${property.name} is required`);
        }
      }
    }
    return entity;
  }

  #items(collection: CollectionModel, items: unknown, set: string): Entity[] {
    if (items === undefined) return [];
    if (!Array.isArray(items)) throw new ODataFault(400, `${set}: ${collection.name} must be a collection`);
    if (collection.required === true && items.length === 0) {
      throw new ODataFault(400, `${set}: at least one ${collection.name} item is required`);
    }
    const type = typeOf(this.model, collection.itemType);
    return items.map((item, index) => ({
      ...this.#validated(type, item as Entity, set),
      ...this.#lineNumber(collection, index),
      ...lineTotal(item as Entity),
    }));
  }

  #lineNumber(collection: CollectionModel, index: number): Entity {
    return collection.kind === 'complex' ? { LineNum: index } : { KLINE: index + 1 };
  }

  #checkReferences(set: string, entity: Entity): void {
    const references = this.model.entitySets.find((candidate) => candidate.name === set)?.references ?? {};
    for (const [path, target] of Object.entries(references)) {
      const [first = '', second] = path.split('/');
      const values =
        second === undefined
          ? [entity[first]]
          : ((entity[first] as Entity[] | undefined) ?? []).map((item) => item[second]);
      const keyName = this.typeOfSet(target).key[0] ?? '';
      for (const value of values) {
        if (value === undefined || value === null) continue;
        if (!this.#rows(target).some((row) => row[keyName] === value)) {
          throw new ODataFault(400, `${set}: ${path} '${String(value)}' is not in ${target}`);
        }
      }
    }
  }

  #fillLines(set: string, entity: Entity): void {
    const defaults = this.model.entitySets.find((candidate) => candidate.name === set)?.lineDefaults ?? [];
    for (const fill of defaults) {
      if (this.#data[fill.from] === undefined) continue;
      for (const line of (entity[fill.lines] as Entity[] | undefined) ?? []) {
        if (line[fill.property] !== undefined && line[fill.property] !== null) continue;
        const master = this.#rows(fill.from).find((row) => row[fill.key] === line[fill.key]);
        line[fill.property] = master?.[fill.source] ?? null;
      }
    }
  }

  #assign(set: string, type: TypeModel, entity: Entity): void {
    for (const property of type.properties) {
      if (property.assigned !== true) continue;
      const numbering = NUMBERING[property.name];
      if (numbering !== undefined)
        entity[property.name] = numbering.format(this.#count(`${set}.${property.name}`));
      else if (property.name === 'DocEntry') entity['DocEntry'] = this.#count('DocEntry');
    }
    if (type.properties.some((property) => property.name === 'DocumentStatus')) {
      entity['DocumentStatus'] = 'bost_Open';
      entity['Cancelled'] = 'tNO';
    }
    if (type.properties.some((property) => property.name === 'ORDSTATUSDES'))
      entity['ORDSTATUSDES'] ??= 'Draft';
    this.#stamp(type, entity);
    this.#total(entity);
  }

  #total(entity: Entity): void {
    const lines = Object.values(entity).find((value): value is Entity[] => Array.isArray(value)) ?? [];
    const net = round2(
      lines.reduce((sum, line) => sum + Number(line['LineTotal'] ?? line['QPRICE'] ?? 0), 0),
    );
    if ('DocTotal' in entity || 'DocEntry' in entity) {
      entity['VatSum'] = round2(net * VAT_RATE);
      entity['DocTotal'] = round2(net * (1 + VAT_RATE));
    } else {
      if ('IVNUM' in entity) {
        entity['QPRICE'] = net;
        entity['VAT'] = round2(net * VAT_RATE);
      }
      entity['TOTPRICE'] = round2(net * (1 + VAT_RATE));
    }
  }

  #count(name: string): number {
    this.#counters[name] = (this.#counters[name] ?? 0) + 1;
    return this.#counters[name];
  }
}

function lineTotal(item: Entity): Entity {
  if (typeof item['Quantity'] === 'number')
    return { LineTotal: round2(item['Quantity'] * Number(item['UnitPrice'] ?? 0)) };
  if (typeof item['TQUANT'] === 'number')
    return { QPRICE: round2(item['TQUANT'] * Number(item['PRICE'] ?? 0)) };
  return {};
}

function checkedValue(property: PropertyModel, value: unknown, set: string): unknown {
  if (value === null) return null;
  const max = property.maxLength;
  if (max !== undefined && typeof value === 'string' && [...value].length > max) {
    throw new ODataFault(
      400,
      `${set}: value too long in property '${property.name}' (at most ${max} characters)`,
    );
  }
  const wrong = () => new ODataFault(400, `${set}: ${property.name} expects ${property.type}`);
  switch (property.type) {
    case 'Edm.Double':
    case 'Edm.Decimal':
      if (typeof value !== 'number') throw wrong();
      return value;
    case 'Edm.Int32':
    case 'Edm.Int64':
      if (typeof value !== 'number' || !Number.isInteger(value)) throw wrong();
      return value;
    case 'Edm.Date':
      if (typeof value !== 'string' || !DATE.test(value)) throw wrong();
      return value;
    case 'Edm.DateTimeOffset':
      if (typeof value !== 'string' || !DATE_TIME.test(value)) throw wrong();
      return value;
    default:
      if (typeof value !== 'string') throw wrong();
      return value;
  }
}
