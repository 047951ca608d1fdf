/**
 * A fast yes/no for the strict schemas: compiled once from a zod schema's own definition, it accepts a value
 * exactly when the schema would accept it and return it unchanged, so the parse itself can be skipped for clean
 * items (most of every page). It reuses zod's own format regexes and mirrors its rules for the parts of zod the
 * contract uses (strict objects, arrays, unions, enums, literals, strings with length and format checks, numbers
 * with bounds and integers, nullable and optional, records with string keys); any other check (a refinement, a
 * URL) runs as zod's own check function. A schema that uses anything else (a transform, a default, a stripping or
 * passthrough object) gets no exact check and is parsed by zod as before. test/contract/exact-check.test.ts holds
 * it to zod's verdicts.
 */
import type * as z from 'zod';
import { util } from 'zod/v4/core';

export type ExactCheck = (value: unknown) => boolean;

type Internals = z.core.$ZodTypeInternals;
type AnySchema = { _zod: Internals };
type Def = Record<string, unknown> & { type: string; checks?: AnySchema[] };

/** A schema or a part of it that zod handles in a way this module does not mirror. */
class NotCompilable extends Error {}

/** String formats whose zod check is its pattern's test and nothing else. */
const PATTERN_FORMATS = new Set(['regex', 'datetime', 'date', 'time', 'email', 'uuid', 'guid']);

/** Types whose values zod's own checks cannot change in place. */
const PRIMITIVE_TYPES = new Set(['string', 'number', 'boolean']);

const compiled = new WeakMap<object, ExactCheck | null>();

/**
 * The exact check of `schema`, or null when it cannot have one. `check(value)` is true only if
 * `schema.safeParse(value)` succeeds with data deep-equal to `value`; when false, parse with zod.
 */
export function exactCheckOf(schema: z.ZodType): ExactCheck | null {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  let check: ExactCheck | null;
  try {
    check = compile(schema as unknown as AnySchema, new Map());
  } catch (error) {
    if (!(error instanceof NotCompilable)) throw error;
    check = null;
  }
  compiled.set(schema, check);
  return check;
}

function defOf(schema: AnySchema): Def {
  return schema._zod.def as unknown as Def;
}

function compile(schema: AnySchema, seen: Map<AnySchema, ExactCheck>): ExactCheck {
  const already = seen.get(schema);
  if (already) return already;
  // A lazy (recursive) schema refers back to itself: hand out a forwarder until the real check exists.
  let real: ExactCheck | null = null;
  seen.set(schema, (value) => (real as ExactCheck)(value));
  real = withChecks(schema, typeCheck(schema, seen));
  seen.set(schema, real);
  return real;
}

/** For a part compiled only when first met (a lazy schema): one zod handles otherwise refuses every value. */
function compileOrRefuse(schema: AnySchema, seen: Map<AnySchema, ExactCheck>): ExactCheck {
  try {
    return compile(schema, seen);
  } catch (error) {
    if (!(error instanceof NotCompilable)) throw error;
    return () => false;
  }
}

/** Checks of the types that hold no other schema. */
const SCALAR_CHECKS: ReadonlyMap<string, ExactCheck> = new Map<string, ExactCheck>([
  ['string', (value) => typeof value === 'string'],
  ['number', (value) => typeof value === 'number' && Number.isFinite(value)],
  ['boolean', (value) => typeof value === 'boolean'],
  ['null', (value) => value === null],
  ['any', () => true],
  ['unknown', () => true],
]);

function arrayCheck(def: Def, seen: Map<AnySchema, ExactCheck>): ExactCheck {
  const element = compile(def['element'] as AnySchema, seen);
  return (value) => {
    if (!Array.isArray(value)) return false;
    for (const item of value) if (!element(item)) return false;
    return true;
  };
}

function unionCheck(def: Def, seen: Map<AnySchema, ExactCheck>): ExactCheck {
  if (def['inclusive'] === false) throw new NotCompilable('exclusive union');
  const options = (def['options'] as AnySchema[]).map((option) => ({
    schema: option as unknown as z.ZodType,
    exact: compile(option, seen),
  }));
  return (value) => {
    for (const option of options) {
      if (option.exact(value)) return true;
      // zod takes the first option that accepts, even one that returns another value: leave that to zod.
      if (option.schema.safeParse(value).success) return false;
    }
    return false;
  };
}

function lazyCheck(def: Def, seen: Map<AnySchema, ExactCheck>): ExactCheck {
  const getter = def['getter'] as () => AnySchema;
  let inner: ExactCheck | null = null;
  return (value) => {
    inner ??= compileOrRefuse(getter(), seen);
    return inner(value);
  };
}

function typeCheck(schema: AnySchema, seen: Map<AnySchema, ExactCheck>): ExactCheck {
  const def = defOf(schema);
  if (def['coerce'] === true) throw new NotCompilable('coercion');
  const scalar = SCALAR_CHECKS.get(def.type);
  if (scalar !== undefined) return scalar;
  switch (def.type) {
    case 'enum':
    case 'literal': {
      const values = schema._zod.values;
      if (!values) throw new NotCompilable(def.type);
      return (value) => values.has(value as never);
    }
    case 'optional': {
      const inner = compile(def['innerType'] as AnySchema, seen);
      return (value) => value === undefined || inner(value);
    }
    case 'nullable': {
      const inner = compile(def['innerType'] as AnySchema, seen);
      return (value) => value === null || inner(value);
    }
    case 'array':
      return arrayCheck(def, seen);
    case 'union':
      return unionCheck(def, seen);
    case 'lazy':
      return lazyCheck(def, seen);
    case 'object':
      return objectCheck(def, seen);
    case 'record':
      return recordCheck(def, seen);
    default:
      throw new NotCompilable(def.type);
  }
}

interface Field {
  key: string;
  check: ExactCheck;
  /** zod lets the key be absent (its schema is optional in and out). */
  mayBeAbsent: boolean;
}

function objectCheck(def: Def, seen: Map<AnySchema, ExactCheck>): ExactCheck {
  const catchall = def['catchall'] as AnySchema | undefined;
  // Only a strict object returns what it was given: a stripping one drops unknown keys, a passthrough one parses them.
  if (catchall === undefined || defOf(catchall).type !== 'never')
    throw new NotCompilable('non-strict object');
  const shape = def['shape'] as Record<string, AnySchema>;
  // zod reads a key as present when `key in value`, inherited ones too, and drops a __proto__ key from its output.
  const inherited = Object.keys(shape).find((key) => key in Object.prototype);
  if (inherited !== undefined) throw new NotCompilable(`a field named ${inherited}`);
  const fields: Field[] = Object.keys(shape).map((key) => {
    const field = shape[key] as AnySchema;
    return {
      key,
      check: compile(field, seen),
      mayBeAbsent: field._zod.optin === 'optional' && field._zod.optout === 'optional',
    };
  });
  return (value) => {
    if (!isPlainRecord(value)) return false;
    let present = 0;
    for (const field of fields) {
      const item = value[field.key];
      if (item === undefined && !(field.key in value)) {
        if (!field.mayBeAbsent) return false;
        continue;
      }
      if (!field.check(item)) return false;
      present += 1;
    }
    // Every own key was one of the shape's: no unknown field.
    return Object.keys(value).length === present;
  };
}

/**
 * A record with plain string keys, as zod reads one: every own key's value checked. A key zod would treat
 * specially (`__proto__`, or `constructor`, which its plain-object test reads) sends the item to zod.
 */
function recordCheck(def: Def, seen: Map<AnySchema, ExactCheck>): ExactCheck {
  const keyType = def['keyType'] as AnySchema;
  const keyDef = defOf(keyType);
  if (keyDef.type !== 'string' || (keyDef.checks?.length ?? 0) > 0 || keyType._zod.traits.has('$ZodCheck')) {
    throw new NotCompilable('record keys other than plain strings');
  }
  if (def['mode'] !== undefined && def['mode'] !== 'strict') throw new NotCompilable('loose record');
  const element = compile(def['valueType'] as AnySchema, seen);
  return (value) => {
    if (!isPlainRecord(value)) return false;
    for (const key of Object.keys(value)) {
      if (key === '__proto__' || key === 'constructor') return false;
      if (!element((value as Record<string, unknown>)[key])) return false;
    }
    return true;
  };
}

/** An object as JSON.parse makes one; zod returns any other kind as a plain copy, which is not the value given. */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

/** The type check followed by the schema's checks (a format schema is itself one of them, as in zod). */
function withChecks(schema: AnySchema, type: ExactCheck): ExactCheck {
  const checks = [...((defOf(schema).checks ?? []) as AnySchema[])];
  if (schema._zod.traits.has('$ZodCheck')) checks.unshift(schema);
  // zod's own check gets the value itself: only a primitive is safe from a check that changes it in place.
  const primitive = PRIMITIVE_TYPES.has(defOf(schema).type);
  const compiledChecks = checks.map((check) => checkOf(check, primitive));
  if (compiledChecks.length === 0) return type;
  return (value) => {
    if (!type(value)) return false;
    for (const check of compiledChecks) if (!check(value)) return false;
    return true;
  };
}

function checkOf(check: AnySchema, primitive: boolean): ExactCheck {
  const def = check._zod.def as unknown as Record<string, unknown>;
  switch (def['check']) {
    case 'string_format': {
      const pattern = def['pattern'];
      if (!PATTERN_FORMATS.has(String(def['format'])) || !(pattern instanceof RegExp)) {
        return zodOwnCheck(check, primitive);
      }
      return (value) => {
        pattern.lastIndex = 0;
        return pattern.test(value as string);
      };
    }
    case 'min_length': {
      const minimum = def['minimum'] as number;
      // Up to 1, counting UTF-16 units gives the same answer as counting code points.
      if (minimum <= 1) return (value) => (value as { length: number }).length >= minimum;
      return (value) => lengthOf(value) >= minimum;
    }
    case 'max_length': {
      const maximum = def['maximum'] as number;
      return (value) => (value as { length: number }).length <= maximum || lengthOf(value) <= maximum;
    }
    case 'length_equals': {
      const length = def['length'] as number;
      return (value) => lengthOf(value) === length;
    }
    case 'greater_than': {
      const bound = numericBound(def['value']);
      return def['inclusive'] === true
        ? (value) => (value as number) >= bound
        : (value) => (value as number) > bound;
    }
    case 'less_than': {
      const bound = numericBound(def['value']);
      return def['inclusive'] === true
        ? (value) => (value as number) <= bound
        : (value) => (value as number) < bound;
    }
    case 'number_format':
      if (def['format'] !== 'safeint') throw new NotCompilable(`number format ${String(def['format'])}`);
      return (value) => Number.isSafeInteger(value);
    default:
      return zodOwnCheck(check, primitive);
  }
}

/**
 * Any other check (a refinement, a format checked by parsing such as a URL) runs as zod's own check function: it
 * passes when it reports no issue and leaves the value as it was (a check that normalizes, such as the URL's trim,
 * makes zod return another value, so the item goes to zod).
 */
function zodOwnCheck(check: AnySchema, primitive: boolean): ExactCheck {
  if (!primitive) throw new NotCompilable('a check of an object or an array');
  const internals = check._zod as unknown as { check?: (payload: z.core.ParsePayload) => unknown };
  if (internals.check === undefined) throw new NotCompilable('a check without a check function');
  const run = internals.check;
  const when = (check._zod.def as { when?: (payload: z.core.ParsePayload) => boolean }).when;
  return (value) => {
    const payload: z.core.ParsePayload = { value, issues: [] };
    if (when !== undefined && !when(payload)) return true;
    const result = run(payload);
    if (result instanceof Promise) throw new TypeError('an asynchronous check in a contract schema');
    return payload.issues.length === 0 && payload.value === value;
  };
}

/** A length as zod's length checks count it: code points for a string, elements for an array. */
function lengthOf(value: unknown): number {
  return typeof value === 'string' ? util.codePointLength(value) : (value as { length: number }).length;
}

function numericBound(value: unknown): number {
  if (typeof value !== 'number') throw new NotCompilable('a bound that is not a number');
  return value;
}
