/**
 * A pull's dead letter keeps the item as the source sent it, with the missing mapping beside it when the flow named
 * one; a replay gets the item back as it was, and an item's own `missing` field that is not a mapping stays.
 */
import { describe, expect, it } from 'vitest';
import { itemOfLetter, letterRecord } from '../../src/engine/dead-letter-record.js';

const missing = { kind: 'SKU', table: 'skus', key: 'VEG-0001', pickup: 'retry' } as const;

describe('dead letter records', () => {
  it('files the missing mapping beside the item and hands the item back alone', () => {
    const item = { kind: 'order', order: { id: 'ord_1', lines: [] } };
    const record = JSON.parse(JSON.stringify(letterRecord(item, missing))) as unknown;
    expect(record).toEqual({ ...item, missing });
    expect(itemOfLetter(record)).toEqual(item);
  });

  it('leaves an item without a named mapping, a non-object item and an unrelated missing field as they are', () => {
    const item = { id: 'doc_1', missing: ['lines'] };
    expect(letterRecord(item, undefined)).toBe(item);
    expect(itemOfLetter(item)).toBe(item);
    expect(letterRecord('raw text', missing)).toBe('raw text');
    expect(itemOfLetter(['a'])).toEqual(['a']);
  });
});
