import { describe, expect, it } from 'vitest';
import {
  isKnownEventType,
  lenient,
  parseEventData,
  parseLenient,
  parseLenientAs,
  strict,
} from '../../src/contract/index.js';
import { exampleJournalLine, exampleOrder } from './fixtures.js';

describe('strict vs lenient', () => {
  it('an unknown enum value: strict rejects, lenient keeps it and reports drift', () => {
    const order = { ...exampleOrder(), status: 'on_hold' };
    expect(strict.Order.safeParse(order).success).toBe(false);
    const result = parseLenient(lenient.Order, order);
    expect(result).toMatchObject({
      ok: true,
      drift: [{ path: 'status', kind: 'unknown_enum_value', value: 'on_hold' }],
    });
    if (result.ok) expect(result.value.status).toBe('on_hold');
  });

  it('an unknown field: strict rejects, lenient strips it and reports drift', () => {
    const order = { ...exampleOrder(), loyalty_points: 12 };
    expect(strict.Order.safeParse(order).success).toBe(false);
    const result = parseLenient(lenient.Order, order);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.drift).toEqual([{ path: 'loyalty_points', kind: 'unknown_field', value: 12 }]);
    expect(result.value).not.toHaveProperty('loyalty_points');
  });

  it('reports drift deep inside arrays with readable paths', () => {
    const order = exampleOrder();
    const lines = order['lines'] as Record<string, unknown>[];
    lines.push({ ...lines[0], id: 'ol_2', color: 'red' });
    const history = order['history'] as Record<string, unknown>[];
    history[0] = { ...history[0], actor: { type: 'robot', id: 'r', name: 'R' } };
    const result = parseLenientAs('Order', order);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.drift).toEqual(
      expect.arrayContaining([
        { path: 'lines[1].color', kind: 'unknown_field', value: 'red' },
        { path: 'history[0].actor.type', kind: 'unknown_enum_value', value: 'robot' },
      ]),
    );
    expect(result.drift).toHaveLength(2);
  });

  it('a well-formed value has no drift', () => {
    const result = parseLenient(lenient.JournalLine, exampleJournalLine());
    expect(result).toEqual({ ok: true, value: exampleJournalLine(), drift: [] });
  });

  it('a bad format is a failure with a reason fit for a quarantine, not drift', () => {
    const line = {
      ...exampleJournalLine(),
      amount: '1.5',
      side: 'sideways',
      doc_date: '2026-11-20T00:00:00',
    };
    const result = parseLenient(lenient.JournalLine, line);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map((issue) => issue.path)).toEqual(['amount', 'doc_date']);
    expect(result.reason).toMatch(/^amount: expected money/);
    expect(result.reason).toMatch(/doc_date: expected a date/);
  });

  it('a missing required field fails even in lenient mode', () => {
    const { id: _id, ...order } = exampleOrder();
    const result = parseLenient(lenient.Order, order);
    expect(result).toMatchObject({ ok: false, issues: [{ path: 'id' }] });
  });

  it('refuses a schema that is not part of the lenient set', () => {
    expect(() => parseLenient(strict.Order, exampleOrder())).toThrow(/lenient/);
  });
});

describe('event data by type', () => {
  it('parses order event data as an Order snapshot and reports its drift', () => {
    const data = { object: 'order', ...exampleOrder(), status: 'on_hold' };
    const result = parseEventData('order.updated', data);
    expect(result).toMatchObject({ ok: true, drift: [{ path: 'status', kind: 'unknown_enum_value' }] });
  });

  it('parses the small gap shapes and rejects a wrong object', () => {
    const approved = { object: 'journal_lines', id: 'apr_1', journal_line_ids: ['jl_1', 'jl_2'], count: 2 };
    expect(parseEventData('journal_lines.approved_for_export', approved)).toEqual({
      ok: true,
      value: approved,
      drift: [],
    });
    expect(
      parseEventData('journal_lines.approved_for_export', { ...approved, object: 'order' }),
    ).toMatchObject({
      ok: false,
    });
  });

  it('returns undefined for an unknown event type, which receivers ignore', () => {
    expect(parseEventData('order.teleported', { object: 'order', id: 'o' })).toBeUndefined();
    expect(isKnownEventType('ping')).toBe(true);
  });
});
