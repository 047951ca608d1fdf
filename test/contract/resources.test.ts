import { describe, expect, it } from 'vitest';
import { EVENT_DATA_SCHEMAS, EVENT_TYPES, lenient, strict } from '../../src/contract/index.js';
import {
  exampleCreditNote,
  exampleEvent,
  exampleJournalLine,
  exampleOrder,
  exampleProblem,
} from './fixtures.js';

describe('resources from the contract examples', () => {
  it('an Order passes both modes unchanged', () => {
    const order = exampleOrder();
    expect(strict.Order.parse(order)).toEqual(order);
    expect(lenient.Order.parse(order)).toEqual(order);
  });

  it('a credit note Document with negative amounts and differences passes', () => {
    const doc = exampleCreditNote();
    expect(strict.Document.parse(doc)).toEqual(doc);
  });

  it('a JournalLine with its 27 fields passes', () => {
    const line = exampleJournalLine();
    expect(Object.keys(line)).toHaveLength(27);
    expect(strict.JournalLine.parse(line)).toEqual(line);
  });

  it('a JournalLine missing its amount is rejected', () => {
    const { amount: _amount, ...line } = exampleJournalLine();
    const result = strict.JournalLine.safeParse(line);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['amount']);
  });

  it('an event envelope passes, keeping the whole data snapshot', () => {
    const event = exampleEvent();
    const parsed = strict.EventEnvelope.parse(event);
    expect(parsed.data).toEqual(event['data']);
    expect(strict.OrderEventData.parse(event['data'])).toEqual(event['data']);
  });

  it('event data without object or id is rejected', () => {
    const event = exampleEvent();
    event['data'] = { status: 'approved' };
    expect(strict.EventEnvelope.safeParse(event).success).toBe(false);
  });

  it('every event type names an existing data schema', () => {
    for (const type of EVENT_TYPES) {
      const name = EVENT_DATA_SCHEMAS[type];
      expect(strict[name], type).toBeDefined();
    }
    expect(strict.PingEventData.parse({ object: 'ping', id: 'evt_1' })).toEqual({
      object: 'ping',
      id: 'evt_1',
    });
    expect(strict.PingEventData.safeParse({ object: 'order', id: 'evt_1' }).success).toBe(false);
  });

  it('a problem body passes; an unknown problem code is strict-only', () => {
    const problem = exampleProblem();
    expect(strict.Problem.parse(problem)).toEqual(problem);
    const unknown = { ...problem, code: 'teapot' };
    expect(strict.Problem.safeParse(unknown).success).toBe(false);
    expect(lenient.Problem.parse(unknown).code).toBe('teapot');
  });

  it('a batch response and a page envelope pass', () => {
    const batch = {
      summary: { total: 2, succeeded: 1, failed: 1, skipped: 0 },
      items: [
        { index: 0, key: 'TOM-1KG', status: 'created', id: 'prod_1' },
        { index: 1, key: 'BAD', status: 'failed', errors: [{ field: 'items[1].name', code: 'required' }] },
      ],
    };
    expect(strict.BatchResponse.parse(batch)).toEqual(batch);
    const page = { data: [{ anything: true }], next_cursor: null, has_more: false };
    expect(strict.PageEnvelope.parse(page)).toEqual(page);
    expect(strict.PageEnvelope.safeParse({ data: [] }).success).toBe(false);
  });

  it('a price must be greater than 0.00', () => {
    expect(strict.PriceEntry.safeParse({ sku: 'A', price: '0.00' }).success).toBe(false);
    expect(strict.PriceEntry.safeParse({ sku: 'A', price: '0.01' }).success).toBe(true);
  });

  it('GET /me keeps branch_ids null as "no restriction"', () => {
    const me = {
      account: { id: 'acc_1', name: 'Galil Produce', type: 'supplier', parent_id: null },
      client: {
        id: 'cli_1',
        name: 'ERP link',
        environment: 'sandbox',
        key_prefix: 'svc_test_ab',
        ip_allowlist: ['127.0.0.1/32'],
        branch_ids: null,
      },
      scopes: ['supplier.orders:read'],
      plan: 'supplier',
      features: ['webhooks'],
      rate_limit: { per_minute: 600, per_day: null },
      api_version: '2',
    };
    expect(strict.Me.parse(me)).toEqual(me);
  });
});
