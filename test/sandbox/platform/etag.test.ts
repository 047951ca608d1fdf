import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { checkIfMatch, etagFor } from '../../../src/sandbox/http/etag.js';
import { ProblemError } from '../../../src/sandbox/http/types.js';

describe('sandbox ETags (gap G6)', () => {
  const updatedAt = '2026-01-05T08:00:00.000Z';
  const etag = etagFor('ord_1', updatedAt);

  it('is the quoted sha1 of id + updated_at and changes with updated_at', () => {
    expect(etag).toBe(`"${createHash('sha1').update(`ord_1${updatedAt}`).digest('hex')}"`);
    expect(etagFor('ord_1', '2026-01-05T08:00:00.001Z')).not.toBe(etag);
  });

  it('passes a missing, matching, listed or * If-Match and answers 412 precondition_failed otherwise', () => {
    expect(() => checkIfMatch({}, etag)).not.toThrow();
    expect(() => checkIfMatch({ 'if-match': etag }, etag)).not.toThrow();
    expect(() => checkIfMatch({ 'if-match': `"other", ${etag}` }, etag)).not.toThrow();
    expect(() => checkIfMatch({ 'if-match': '*' }, etag)).not.toThrow();
    try {
      checkIfMatch({ 'if-match': etagFor('ord_1', '2025-01-01T00:00:00.000Z') }, etag);
      expect.unreachable('stale ETag accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ProblemError);
      expect(error).toMatchObject({ status: 412, code: 'precondition_failed' });
    }
  });
});
