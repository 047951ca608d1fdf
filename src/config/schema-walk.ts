/** Navigation of zod 4 schemas by key path, shared by secret detection, redaction and did-you-mean hints. */
import * as z from 'zod';

type Def = { type: string; [key: string]: unknown };

function defOf(schema: z.ZodType): Def {
  return schema._zod.def as unknown as Def;
}

function hasSecretMeta(schema: z.ZodType): boolean {
  const meta = z.globalRegistry.get(schema);
  return meta !== undefined && (meta as Record<string, unknown>)['secret'] === true;
}

const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** Strips wrappers (optional, default, pipes, lazy) and reports whether any layer was marked secret. */
export function unwrap(schema: z.ZodType): { schema: z.ZodType; secret: boolean } {
  let current = schema;
  let secret = false;
  for (let depth = 0; depth < 32; depth++) {
    if (hasSecretMeta(current)) secret = true;
    const def = defOf(current);
    if (WRAPPERS.has(def.type)) current = def['innerType'] as z.ZodType;
    else if (def.type === 'pipe') current = def['in'] as z.ZodType;
    else if (def.type === 'lazy') current = (def['getter'] as () => z.ZodType)();
    else break;
  }
  return { schema: current, secret };
}

export type PathSegment = string | number;

/** The schema describing the value at `key` inside a value of `schema`, if it can be known statically. */
export function childSchema(schema: z.ZodType, key: PathSegment): z.ZodType | undefined {
  const inner = unwrap(schema).schema;
  const def = defOf(inner);
  if (def.type === 'object') return (def['shape'] as Record<string, z.ZodType>)[String(key)];
  if (def.type === 'record') return def['valueType'] as z.ZodType;
  if (def.type === 'array') return def['element'] as z.ZodType;
  if (def.type === 'union') {
    for (const option of def['options'] as z.ZodType[]) {
      const child = childSchema(option, key);
      if (child) return child;
    }
  }
  return undefined;
}

export function schemaAtPath(schema: z.ZodType, path: readonly PathSegment[]): z.ZodType | undefined {
  let current: z.ZodType | undefined = schema;
  for (const key of path) {
    if (!current) return undefined;
    current = childSchema(current, key);
  }
  return current;
}

/** Keys an object schema accepts (empty when the schema is not an object). */
export function objectKeys(schema: z.ZodType): string[] {
  const inner = unwrap(schema).schema;
  const def = defOf(inner);
  if (def.type === 'union') return [...new Set((def['options'] as z.ZodType[]).flatMap(objectKeys))];
  return def.type === 'object' ? Object.keys(def['shape'] as Record<string, z.ZodType>) : [];
}

export function isSecretSchema(schema: z.ZodType | undefined): boolean {
  return schema !== undefined && unwrap(schema).secret;
}

/** Paths of secret fields inside `schema`; `*` stands for any record key or array index. */
export function secretPathsOf(schema: z.ZodType, prefix: readonly string[] = [], depth = 0): string[][] {
  if (depth > 16) return [];
  const { schema: inner, secret } = unwrap(schema);
  if (secret) return [[...prefix]];
  const def = defOf(inner);
  if (def.type === 'object') {
    return Object.entries(def['shape'] as Record<string, z.ZodType>).flatMap(([key, child]) =>
      secretPathsOf(child, [...prefix, key], depth + 1),
    );
  }
  if (def.type === 'record') return secretPathsOf(def['valueType'] as z.ZodType, [...prefix, '*'], depth + 1);
  if (def.type === 'array') return secretPathsOf(def['element'] as z.ZodType, [...prefix, '*'], depth + 1);
  if (def.type === 'union') {
    return (def['options'] as z.ZodType[]).flatMap((option) => secretPathsOf(option, prefix, depth + 1));
  }
  return [];
}
