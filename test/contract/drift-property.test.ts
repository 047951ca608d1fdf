import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORDER_STATUSES, lenient, parseLenient } from '../../src/contract/index.js';
import { exampleOrder } from './fixtures.js';

const knownKeys = new Set(Object.keys(lenient.Order.shape));
const knownStatuses: ReadonlySet<string> = new Set(ORDER_STATUSES);

describe('lenient parsing under schema drift (property)', () => {
  it('added fields and new status values never fail, and are reported exactly', () => {
    const extraKey = fc.stringMatching(/^[a-z][a-z_]{0,15}$/).filter((key) => !knownKeys.has(key));
    const extras = fc.dictionary(extraKey, fc.jsonValue(), { maxKeys: 4 });
    const status = fc.oneof(fc.constantFrom(...ORDER_STATUSES), fc.stringMatching(/^[a-z][a-z_]{0,20}$/));
    fc.assert(
      fc.property(extras, status, (added, newStatus) => {
        const order = { ...exampleOrder(), ...added, status: newStatus };
        const result = parseLenient(lenient.Order, order);
        expect(result.ok).toBe(true);
        if (!result.ok) return;
        expect(result.value.status).toBe(newStatus);
        const expected = Object.keys(added).map((key) => ({
          path: key,
          kind: 'unknown_field',
          value: added[key],
        }));
        if (!knownStatuses.has(newStatus)) {
          expected.unshift({ path: 'status', kind: 'unknown_enum_value', value: newStatus });
        }
        expect(result.drift).toEqual(expect.arrayContaining(expected));
        expect(result.drift).toHaveLength(expected.length);
        for (const key of Object.keys(added)) expect(result.value).not.toHaveProperty(key);
      }),
      { numRuns: 200 },
    );
  });
});
