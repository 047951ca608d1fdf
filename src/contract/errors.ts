/** The problem body of part 7 (RFC 9457). */
import * as z from 'zod';
import { ERROR_CODES } from './error-codes.js';
import { Uri } from './formats.js';
import type { SchemaKit } from './kit.js';
import type { SharedShapes } from './shared.js';

export function defineErrors(k: SchemaKit, s: SharedShapes) {
  const Problem = k.object({
    type: Uri,
    title: z.string(),
    status: z.int().min(400).max(599),
    code: k.enumOf(ERROR_CODES),
    detail: z.string().optional(),
    instance: z.string().optional(),
    request_id: z.string().optional(),
    errors: z.array(s.ValidationErrorItem).optional(),
    upgrade_url: Uri.optional(),
  });
  return { Problem };
}
