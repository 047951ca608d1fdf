import type { ReadField, WriteValue } from './config.js';
import type { ODataValue } from './literals.js';
import type { Entity } from './service.js';

/** The values supply-sync provides to order mappings, by `:name` (src/kit/order-params.ts, as in the sql connector). */
export type Params = Readonly<Record<string, ODataValue>>;

const DECIMALS = new Set([
  'quantity',
  'unit_price',
  'discount_pct',
  'line_total',
  'total_before_vat',
  'vat',
  'total_with_vat',
]);

/** A decimal string as a JSON number, refused when the number would not say the same amount. */
function decimalNumber(text: string, property: string): number {
  const value = Number(text);
  const canonical = (s: string) => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s);
  if (
    !Number.isFinite(value) ||
    canonical(String(value)) !== canonical(text.replace(/^(-?)0+(?=\d)/, '$1'))
  ) {
    throw new Error(`${property}: the amount has more digits than a JSON number keeps`);
  }
  return value;
}

/** The offset of a zone at an instant, as `+02:00` (`Z` for UTC). */
function offsetAt(instant: Date, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(instant)
    .find((part) => part.type === 'timeZoneName')?.value;
  const offset = (name ?? 'GMT').replace('GMT', '');
  return offset === '' ? 'Z' : offset;
}

const minutesOf = (offset: string): number =>
  offset === 'Z'
    ? 0
    : (offset.startsWith('-') ? -1 : 1) * (Number(offset.slice(1, 3)) * 60 + Number(offset.slice(4, 6)));

/**
 * A date written as midnight in the company's zone with that zone's offset (`2026-11-24T00:00:00+02:00`), or as
 * midnight UTC without a zone. The offset is the one in force at that local midnight (daylight saving included).
 */
export function midnightIn(date: string, timeZone: string | undefined): string {
  if (timeZone === undefined) return `${date}T00:00:00Z`;
  const utcMidnight = new Date(`${date}T00:00:00Z`);
  const guess = new Date(utcMidnight.getTime() - minutesOf(offsetAt(utcMidnight, timeZone)) * 60_000);
  const offset = offsetAt(guess, timeZone);
  return `${date}T00:00:00${offset === 'Z' ? 'Z' : offset}`;
}

function typed(
  raw: ODataValue,
  as: string,
  param: string | null,
  property: string,
  timeZone?: string,
): unknown {
  if (raw === null) return null;
  if (as === 'number' || (as === 'auto' && param !== null && DECIMALS.has(param))) {
    return typeof raw === 'number' ? raw : decimalNumber(String(raw), property);
  }
  if (as === 'datetime') return midnightIn(String(raw).slice(0, 10), timeZone);
  if (as === 'date') return String(raw).slice(0, 10);
  if (as === 'boolean') return raw === true || raw === 'true';
  if (as === 'text') return String(raw);
  return raw;
}

/** The `:name` a mapping value refers to, or null for a constant. */
export function paramOf(value: WriteValue): string | null {
  const text = typeof value === 'object' ? value.value : value;
  return typeof text === 'string' && /^:[A-Za-z_][A-Za-z0-9_]*$/.test(text) ? text.slice(1) : null;
}

/** One entity written from a mapping (property -> `:param` or constant) and the values provided. */
export function writeEntity(
  mapping: Readonly<Record<string, WriteValue>>,
  params: Params,
  where: string,
  timeZone?: string,
): Entity {
  const entity: Entity = {};
  for (const [property, value] of Object.entries(mapping)) {
    const param = paramOf(value);
    const as = typeof value === 'object' ? value.as : 'auto';
    if (param !== null && !(param in params))
      throw new Error(`${where}.${property}: :${param} is not provided here`);
    const raw: ODataValue =
      param !== null ? (params[param] ?? null) : typeof value === 'object' ? value.value : value;
    const maxLength = typeof value === 'object' ? value.max_length : undefined;
    entity[property] = shortened(typed(raw, as, param, `${where}.${property}`, timeZone), maxLength);
  }
  return entity;
}

/**
 * A text longer than the field's published length, cut to it with its last kept character replaced by "…", so
 * the ERP keeps the order and a person reading the field sees that it was shortened. Counted in characters (code
 * points), as the ERPs count a field's length.
 */
export function shortened(value: unknown, maxLength: number | undefined): unknown {
  if (maxLength === undefined || typeof value !== 'string') return value;
  const characters = [...value];
  return characters.length <= maxLength ? value : `${characters.slice(0, maxLength - 1).join('')}…`;
}

/** A value read from an entity by a path (`Prop`, `Prop/Child` inside the row's flattened item). */
function readPath(
  entity: Entity,
  path: string,
  flatten: string | undefined,
  item: Entity | undefined,
): unknown {
  const [first, ...rest] = path.split('/');
  let value: unknown = first === flatten && item !== undefined ? item : entity[first ?? ''];
  for (const segment of rest) {
    value = typeof value === 'object' && value !== null ? (value as Entity)[segment] : undefined;
  }
  return value;
}

export type ReadValue = string | boolean | null;

/** The neutral fields of one row: text for values, yes/no for fields read as a condition. */
export function readFields(
  entity: Entity,
  fields: Readonly<Record<string, ReadField>>,
  flatten?: string,
  item?: Entity,
): Record<string, ReadValue> {
  const out: Record<string, ReadValue> = {};
  for (const [field, spec] of Object.entries(fields)) {
    const path = typeof spec === 'string' ? spec : spec.path;
    const value = readPath(entity, path, flatten, item);
    if (typeof spec === 'string') out[field] = value === null || value === undefined ? null : String(value);
    else if (spec.above_zero === true) out[field] = Number(value) > 0;
    else out[field] = (spec.true_values ?? ['true', 'tYES', 'Y']).includes(String(value));
  }
  return out;
}

/** The rows of a read: one per entity, or one per item of its `flatten` collection. */
export function rowsOf(
  entities: readonly Entity[],
  fields: Readonly<Record<string, ReadField>>,
  flatten: string | undefined,
): Array<Record<string, ReadValue>> {
  if (flatten === undefined) return entities.map((entity) => readFields(entity, fields));
  return entities.flatMap((entity) => {
    const items = entity[flatten];
    return Array.isArray(items)
      ? items.map((item) => readFields(entity, fields, flatten, item as Entity))
      : [];
  });
}

/** The properties a set of read fields uses, for $select. */
export function selectedProperties(
  fields: Readonly<Record<string, ReadField>>,
  extra: readonly string[] = [],
): string[] {
  const names = Object.values(fields).map(
    (spec) => (typeof spec === 'string' ? spec : spec.path).split('/')[0] ?? '',
  );
  return [...new Set([...extra, ...names])];
}
