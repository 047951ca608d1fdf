import * as z from 'zod';

/**
 * A secret string: never logged, never echoed in errors, redacted in dumps. Can also be given as `<key>_file`
 * (read from that file, one trailing newline trimmed) or through `${ENV}` substitution.
 */
export function secret(description = 'a non-empty secret') {
  return z
    .string({ error: `expected ${description}` })
    .min(1, { error: `expected ${description}` })
    .meta({ secret: true });
}

/** Marks any schema as secret (for example a connection string that embeds a password). */
export function markSecret<T extends z.ZodType>(schema: T): T {
  return schema.meta({ secret: true }) as T;
}

export const REDACTED = '[redacted]';
