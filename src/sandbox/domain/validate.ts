/** Request validation with the contract's strict schemas: every problem becomes a 422 item {field, code, message}. */
import type * as z from 'zod';
import { validationItemsFrom } from '../../contract/index.js';
import { invalid, type ValidationItem } from './errors.js';

const prefixed = (prefix: string, field: string): string =>
  prefix === ''
    ? field
    : field === ''
      ? prefix
      : field.startsWith('[')
        ? `${prefix}${field}`
        : `${prefix}.${field}`;

/** Parses a request body (an absent body counts as {}) or throws 422 validation_error. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const input = body === undefined ? {} : body;
  const result = schema.safeParse(input);
  if (!result.success)
    throw invalid(
      validationItemsFrom(result.error, input).map((item) => ({ ...item, field: item.field || '(body)' })),
    );
  return result.data;
}

/** Parses one batch item; failures become that item's errors, with fields under `items[i]`. */
export function parseItem<S extends z.ZodType>(
  schema: S,
  item: unknown,
  prefix: string,
): { ok: true; value: z.output<S> } | { ok: false; errors: ValidationItem[] } {
  const result = schema.safeParse(item);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    errors: validationItemsFrom(result.error, item).map((error) => ({
      ...error,
      field: prefixed(prefix, error.field),
    })),
  };
}
