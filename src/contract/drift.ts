/**
 * Lenient parsing with drift reporting. A value is parsed with its strict twin first (the common case: one pass,
 * no drift). Only when that fails is it parsed leniently; the strict issues then name the drift: unknown fields
 * and unknown enum values. Anything the lenient schema rejects is a real failure, with a readable reason.
 */
import type * as z from 'zod';
import { type SchemaName, lenient, strict } from './build.js';
import { exactCheckOf } from './exact-check.js';

export interface DriftItem {
  /** JSON-path-like location, e.g. `lines[2].status` or `` for the root. */
  path: string;
  kind: 'unknown_enum_value' | 'unknown_field';
  value: unknown;
}

export interface ParseIssue {
  path: string;
  message: string;
}

export type LenientResult<T> =
  { ok: true; value: T; drift: DriftItem[] } | { ok: false; issues: ParseIssue[]; reason: string };

const strictTwins = new WeakMap<z.ZodType, z.ZodType>();
for (const name of Object.keys(lenient) as SchemaName[]) strictTwins.set(lenient[name], strict[name]);

/** Parses `value` with a schema of `lenient`, reporting drift against its strict twin. */
export function parseLenient<T extends z.ZodType>(schema: T, value: unknown): LenientResult<z.output<T>> {
  const twin = strictTwins.get(schema);
  if (twin === undefined) throw new TypeError('parseLenient needs a schema exported by `lenient`');
  // A clean item (most of every page) is what the strict schema would return: skip the parse.
  if (exactCheckOf(twin)?.(value) === true) return { ok: true, value: value as z.output<T>, drift: [] };
  const strictResult = twin.safeParse(value);
  if (strictResult.success) return { ok: true, value: strictResult.data as z.output<T>, drift: [] };
  const lenientResult = schema.safeParse(value);
  if (!lenientResult.success) {
    const issues = lenientResult.error.issues.map((issue) => ({
      path: formatPath(issue.path),
      message: issue.message,
    }));
    return { ok: false, issues, reason: describeIssues(issues) };
  }
  return { ok: true, value: lenientResult.data, drift: driftFrom(strictResult.error.issues, value) };
}

/** Parses by schema name: `parseLenientAs('Order', json)`. */
export function parseLenientAs<N extends SchemaName>(name: N, value: unknown) {
  return parseLenient(lenient[name], value);
}

function driftFrom(issues: readonly z.core.$ZodIssue[], input: unknown): DriftItem[] {
  const drift: DriftItem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const owner = valueAt(input, issue.path);
      for (const key of issue.keys) {
        drift.push({
          path: formatPath([...issue.path, key]),
          kind: 'unknown_field',
          value: fieldOf(owner, key),
        });
      }
    } else if (issue.code === 'invalid_value') {
      drift.push({
        path: formatPath(issue.path),
        kind: 'unknown_enum_value',
        value: valueAt(input, issue.path),
      });
    }
  }
  return drift;
}

function fieldOf(owner: unknown, key: PropertyKey): unknown {
  if (typeof owner !== 'object' || owner === null) return undefined;
  return (owner as Record<PropertyKey, unknown>)[key];
}

/** The value at a zod issue path inside `input` (undefined when absent). */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) current = fieldOf(current, key);
  return current;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

const MAX_LISTED_ISSUES = 5;

/** One line for a quarantine record: "lines[0].total: expected money ...; status: ...". */
export function describeIssues(issues: readonly ParseIssue[]): string {
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map((i) => `${i.path || '(root)'}: ${i.message}`);
  const more = issues.length > MAX_LISTED_ISSUES ? `; and ${issues.length - MAX_LISTED_ISSUES} more` : '';
  return listed.join('; ') + more;
}
