import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strict } from '../../../src/contract/index.js';
import { createDomain } from '../../../src/sandbox/domain/index.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';
import { MALFORMED_TARGETS, requestRawTarget } from '../../support/raw-target.js';

let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ createDomain });
});
afterAll(async () => {
  await sandbox.close();
});

describe('a request target that is not a URL', () => {
  it('is answered 400 as a problem, and the sandbox goes on serving', async () => {
    for (const target of MALFORMED_TARGETS) {
      const reply = await requestRawTarget(sandbox.baseUrl, target);
      expect({ target, status: reply.status }).toEqual({ target, status: 400 });
      expect(JSON.parse(reply.body)).toMatchObject({ status: 400, code: 'validation_error' });
    }
    expect((await fetch(new URL('/nothing-here', sandbox.baseUrl))).status).toBe(404);
  });
});

async function api(
  key: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${sandbox.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${key}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>),
  };
}

describe('the domain over real HTTP', () => {
  it('pages every pending order of the supplier in the strict schema', async () => {
    const ids = new Set<string>();
    let cursor: string | null = null;
    do {
      const query: string = `?limit=7&status=pending_approval${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await api(sandbox.keys.supplier, 'GET', `/supplier/orders${query}`);
      expect(page.status).toBe(200);
      const envelope = page.body as { data: { id: string; status: string }[]; next_cursor: string | null };
      for (const order of envelope.data) {
        strict.Order.parse(order);
        expect(order.status).toBe('pending_approval');
        ids.add(order.id);
      }
      cursor = envelope.next_cursor;
    } while (cursor !== null);
    expect(ids.size).toBeGreaterThan(0);
  });

  it('a buyer order sent from the control plane is confirmed and acknowledged once', async () => {
    const sent = (await sandbox.control.action('buyer_send_order', { count: 1 })) as { order_ids: string[] };
    const id = sent.order_ids[0] ?? '';
    const got = await api(sandbox.keys.supplier, 'GET', `/supplier/orders/${id}`);
    expect(got.headers.get('etag')).toMatch(/^"[0-9a-f]{40}"$/);
    const confirmed = await api(sandbox.keys.supplier, 'POST', `/supplier/orders/${id}/confirm`, {});
    expect([confirmed.status, confirmed.body?.['status']]).toEqual([200, 'approved']);
    const ack = await api(sandbox.keys.supplier, 'POST', `/supplier/orders/${id}/acknowledge`, {
      external_ref: 'SO-77',
    });
    const ackAgain = await api(sandbox.keys.supplier, 'POST', `/supplier/orders/${id}/acknowledge`, {
      external_ref: 'SO-77',
    });
    expect([ack.status, ackAgain.status]).toEqual([200, 200]);
    const state = await sandbox.control.state();
    const tallies = state['orderTallies'] as Record<
      string,
      { acknowledgements: number; confirmations: number }
    >;
    expect(tallies[id]).toEqual(expect.objectContaining({ acknowledgements: 1, confirmations: 1 }));
  });

  it('PATCH of a supplier buyer with a stale If-Match answers 412 problem+json', async () => {
    const current = await api(sandbox.keys.supplier, 'GET', '/supplier/buyers/byr_demo');
    const etag = current.headers.get('etag') ?? '';
    const patched = await api(
      sandbox.keys.supplier,
      'PATCH',
      '/supplier/buyers/byr_demo',
      { erp_ref: 'CUST-1' },
      { 'if-match': etag },
    );
    expect(patched.status).toBe(200);
    strict.SupplierBuyer.parse(patched.body);
    const stale = await api(
      sandbox.keys.supplier,
      'PATCH',
      '/supplier/buyers/byr_demo',
      { erp_ref: 'CUST-2' },
      { 'if-match': etag },
    );
    expect([stale.status, stale.headers.get('content-type'), stale.body?.['code']]).toEqual([
      412,
      expect.stringContaining('application/problem+json'),
      'precondition_failed',
    ]);
  });

  it('the buyer key reads branches, and journal lines are exported once over HTTP', async () => {
    const branches = await api(sandbox.keys.buyer, 'GET', '/branches');
    expect(
      (branches.body as { data: unknown[] }).data.map((branch) => strict.Branch.parse(branch)),
    ).toHaveLength(6);
    const approved = (await sandbox.control.action('approve_journal_lines', { count: 4 })) as {
      journal_line_ids: string[];
    };
    const body = { journal_line_ids: approved.journal_line_ids };
    const first = await api(sandbox.keys.buyer, 'POST', '/accounting/exports', body, {
      'idempotency-key': 'exp-1',
    });
    expect(first.status).toBe(201);
    const second = await api(sandbox.keys.buyer, 'POST', '/accounting/exports', body, {
      'idempotency-key': 'exp-2',
    });
    expect([second.status, second.body?.['code']]).toEqual([409, 'conflict']);
  });
});
