import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SortedBlocks } from '../../../src/sandbox/http/sorted-blocks.js';

interface Item {
  key: number;
  tag: number;
}
const byKey = (a: Item, b: Item) => a.key - b.key;

function contents(list: SortedBlocks<Item>): Item[] {
  const out: Item[] = [];
  list.forEachFrom({ block: 0, offset: 0 }, (item) => {
    out.push(item);
    return true;
  });
  return out;
}

describe('sorted blocks', () => {
  it('matches a sorted array under random inserts and removals across many blocks', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat(400), { minLength: 1200, maxLength: 3000 }),
        fc.array(fc.tuple(fc.boolean(), fc.nat(400), fc.nat()), { minLength: 1500, maxLength: 3000 }),
        fc.nat(400),
        (initial, operations, probe) => {
          let tag = 0;
          const reference = initial.map((key) => ({ key, tag: tag++ })).sort(byKey);
          const list = new SortedBlocks<Item>(byKey);
          list.reset(reference);
          for (const [insert, key, pick] of operations) {
            if (insert || reference.length === 0) {
              const item = { key, tag: tag++ };
              list.insert(item);
              const at = reference.findIndex((other) => other.key > key);
              reference.splice(at === -1 ? reference.length : at, 0, item);
            } else {
              // A batch of up to four entries, one of them possibly removed already.
              const batch: Item[] = [];
              for (let n = 0; n <= pick % 4 && reference.length > 0; n++) {
                const [removed] = reference.splice((pick * (n + 1)) % reference.length, 1);
                if (removed !== undefined) batch.push(removed);
              }
              if (pick % 3 === 0 && batch[0] !== undefined) batch.push(batch[0]);
              const before = list.size;
              list.removeAll(batch);
              expect(list.size).toBe(before - new Set(batch).size);
            }
          }
          expect(list.size).toBe(reference.length);
          expect(contents(list).map((item) => item.tag)).toEqual(reference.map((item) => item.tag));
          const from: Item[] = [];
          list.forEachFrom(
            list.seek((item) => item.key < probe),
            (item) => {
              from.push(item);
              return true;
            },
          );
          expect(from).toEqual(reference.filter((item) => item.key >= probe));
        },
      ),
      { numRuns: 30, seed: 20261122 },
    );
  });

  it('removes only the very entries given among equal keys spread over blocks, and nothing that is not there', () => {
    const list = new SortedBlocks<Item>(byKey);
    const items = Array.from({ length: 2500 }, (_, tag) => ({ key: 7, tag }));
    for (const item of items) list.insert(item);
    list.removeAll([
      { key: 7, tag: 99 },
      { key: 8, tag: 0 },
    ]);
    expect(list.size).toBe(2500);
    const target = items[1800];
    if (target === undefined) throw new Error('fixture');
    list.removeAll([target]);
    expect(contents(list)).not.toContain(target);
    expect(list.size).toBe(2499);
  });
});
