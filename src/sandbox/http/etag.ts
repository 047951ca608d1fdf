/** Strong ETags for versioned resources (gap G6) and the If-Match check answering 412. */
import { createHash } from 'node:crypto';
import { ProblemError } from './types.js';

/** `"<sha1 hex of id + updated_at>"`, quoted as a strong ETag. */
export function etagFor(id: string, updatedAt: string): string {
  return `"${createHash('sha1')
    .update(id + updatedAt)
    .digest('hex')}"`;
}

/**
 * Throws 412 precondition_failed when an If-Match header is present and matches none of its listed ETags.
 * `*` matches any existing resource; a missing header passes (If-Match is optional in the contract).
 */
export function checkIfMatch(
  headers: Readonly<Record<string, string | undefined>>,
  currentEtag: string,
): void {
  const header = headers['if-match'];
  if (header === undefined || header.trim() === '') return;
  const candidates = header.split(',').map((part) => part.trim());
  if (candidates.includes('*') || candidates.includes(currentEtag)) return;
  throw new ProblemError(
    412,
    'precondition_failed',
    'If-Match does not match the current ETag; re-read the resource.',
  );
}
