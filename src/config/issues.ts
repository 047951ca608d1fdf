/** Turning zod issues into config issues that name line, key path, what was expected and (safely) what was found. */
import type * as z from 'zod';
import { closestMatch } from './did-you-mean.js';
import { formatPath, type ConfigIssue } from './errors.js';
import { isSecretSchema, objectKeys, type PathSegment } from './schema-walk.js';
import type { ConfigSource } from './source.js';

type RawIssue = z.core.$ZodRawIssue;

const TYPE_NAMES: Record<string, string> = {
  object: 'a mapping of keys',
  array: 'a list',
  string: 'text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/**
 * A union none of whose kinds matched, when each kind failed on the type alone: "expected text or a number". Other
 * unions keep zod's wording.
 */
function unionExpectation(branches: readonly (readonly z.core.$ZodIssue[])[]): string | undefined {
  const expected = branches.map((issues) => {
    const [only, ...more] = issues;
    return only?.code === 'invalid_type' && more.length === 0 && only.path.length === 0
      ? (TYPE_NAMES[only.expected] ?? only.expected)
      : undefined;
  });
  if (expected.length === 0 || expected.some((name) => name === undefined)) return undefined;
  return `expected ${[...new Set(expected)].join(' or ')}`;
}

/** Default wording for zod issues whose schema did not set its own message. */
export function configErrorMap(issue: RawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      const expected = TYPE_NAMES[issue.expected] ?? issue.expected;
      return issue.input === undefined ? `is required (expected ${expected})` : `expected ${expected}`;
    }
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string') return `expected at least ${String(issue.minimum)} characters`;
      if (issue.origin === 'array') return `expected at least ${String(issue.minimum)} items`;
      return `expected a number ${issue.inclusive ? '>=' : '>'} ${String(issue.minimum)}`;
    case 'too_big':
      if (issue.origin === 'string') return `expected at most ${String(issue.maximum)} characters`;
      if (issue.origin === 'array') return `expected at most ${String(issue.maximum)} items`;
      return `expected a number ${issue.inclusive ? '<=' : '<'} ${String(issue.maximum)}`;
    case 'invalid_union':
      return unionExpectation(issue.errors);
    case 'invalid_format':
      if (issue.format === 'url') return 'expected a URL';
      if (issue.format === 'regex') return `expected text matching ${String(issue.pattern)}`;
      return `expected ${issue.format}`;
    default:
      return undefined;
  }
}

function valueAt(data: unknown, path: readonly PathSegment[]): unknown {
  let current = data;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[String(key)];
  }
  return current;
}

function isDerived(source: ConfigSource, path: readonly PathSegment[]): string | undefined {
  for (let length = path.length; length > 0; length--) {
    const origin = source.derived.get(formatPath(path.slice(0, length)));
    if (origin !== undefined) return origin;
  }
  return undefined;
}

/** Values shaped like keys, signing secrets or URLs with a password are never echoed, whatever field they are in. */
const CREDENTIAL_SHAPE =
  /svc_(?:live|test)_|whsec_|\/\/[^/\s:@]+:[^@\s]+@|password\s*=|^eyJ[\w-]+\.[\w-]+\./i;

export interface IssueContext {
  readonly source: ConfigSource;
  /** Where the validated block sits in the file (e.g. ['connectors', 'erp']). */
  readonly prefix: readonly PathSegment[];
  readonly data: unknown;
  readonly schemaAt: (path: readonly PathSegment[]) => z.ZodType | undefined;
}

/** What was found, safe to print: nothing for secrets or values from the environment or files. */
export function describeFound(context: IssueContext, path: readonly PathSegment[]): string {
  const value = valueAt(context.data, path);
  if (value === undefined) return '';
  if (isSecretSchema(context.schemaAt(path))) return '';
  const origin = isDerived(context.source, [...context.prefix, ...path]);
  if (origin !== undefined) return ` (value ${origin} not shown)`;
  if (typeof value === 'string' && CREDENTIAL_SHAPE.test(value))
    return ' (value looks like a credential, not shown)';
  if (typeof value === 'string')
    return `, got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value)}`;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null)
    return `, got ${String(value)}`;
  return Array.isArray(value) ? ', got a list' : ', got a mapping';
}

export function toConfigIssues(issues: readonly z.core.$ZodIssue[], context: IssueContext): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  const { source, prefix } = context;
  for (const issue of issues) {
    const local = issue.path.filter((key): key is PathSegment => typeof key !== 'symbol');
    if (issue.code === 'unrecognized_keys') {
      const known = objectKeys(context.schemaAt(local) ?? ({} as z.ZodType));
      for (const key of issue.keys) {
        const full = [...prefix, ...local, key];
        const suggestion = closestMatch(key, known);
        const hint = suggestion
          ? `; did you mean "${suggestion}"?`
          : known.length
            ? ` (expected one of: ${known.join(', ')})`
            : '';
        out.push({
          file: source.file,
          ...source.locate(full, true),
          path: formatPath(full),
          message: `unknown key "${key}"${hint}`,
        });
      }
      continue;
    }
    const full = [...prefix, ...local];
    out.push({
      file: source.file,
      ...source.locate(full),
      path: formatPath(full),
      message: `${issue.message}${describeFound(context, local)}`,
    });
  }
  return out;
}
