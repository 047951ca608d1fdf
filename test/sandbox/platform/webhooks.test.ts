import { describe, expect, it } from 'vitest';
import Stripe from 'stripe';
import { call, field, startReceiver, verifySignature, waitFor, withSandbox } from './fixtures.js';
import type { Receiver } from './fixtures.js';
import { createManualClock } from '../../../src/sandbox/index.js';
import type { RunningSandbox } from '../../../src/sandbox/index.js';

async function createEndpoint(
  sandbox: RunningSandbox,
  url: string,
  events: string[],
  key = sandbox.keys.supplier,
) {
  const created = await call(`${sandbox.baseUrl}/webhooks`, {
    key,
    body: { url, events, description: 'conformance' },
  });
  expect(created.status).toBe(201);
  return { id: String(field(created.json, 'id')), secret: String(field(created.json, 'secret')) };
}

async function raiseThing(sandbox: RunningSandbox, key: string) {
  const response = await call(`${sandbox.baseUrl}/supplier/things`, {
    key: sandbox.keys.supplier,
    body: { key },
    headers: { 'idempotency-key': key },
  });
  expect(response.status).toBe(201);
  return String(field(response.json, 'id'));
}

function envelopeOf(receiver: Receiver, index: number): Record<string, unknown> {
  const hit = receiver.received[index];
  if (!hit) throw new Error(`no delivery ${index}`);
  return JSON.parse(hit.raw.toString('utf8')) as Record<string, unknown>;
}

async function deliveries(sandbox: RunningSandbox, webhookId: string, query = 'limit=200') {
  const response = await call(`${sandbox.baseUrl}/webhooks/${webhookId}/deliveries?${query}`, {
    key: sandbox.keys.supplier,
  });
  expect(response.status).toBe(200);
  return response;
}

describe('sandbox webhooks (contract parts 4.16 and 6)', () => {
  it('creates, reads, updates and deletes endpoints; https only unless http to loopback is allowed', async () => {
    await withSandbox({}, async (sandbox) => {
      const url = `${sandbox.baseUrl}/webhooks`;
      const http = await call(url, {
        key: sandbox.keys.supplier,
        body: { url: 'http://127.0.0.1:9/x', events: ['ping'] },
      });
      expect(http.status).toBe(422);
      expect(field(http.json, 'errors', 0, 'field')).toBe('url');
      const created = await call(url, {
        key: sandbox.keys.supplier,
        body: { url: 'https://erp.example.test/hooks', events: ['order.created'] },
      });
      expect(created.status).toBe(201);
      expect(String(field(created.json, 'secret'))).toMatch(/^whsec_/);
      expect(field(created.json, 'status')).toBe('active');
      const id = String(field(created.json, 'id'));
      const listed = await call(url, { key: sandbox.keys.supplier });
      expect(field(listed.json, 'data', 0, 'id')).toBe(id);
      expect(listed.text).not.toContain('whsec_');
      expect(field(listed.json, 'next_cursor')).toBeUndefined();
      const patched = await call(`${url}/${id}`, {
        key: sandbox.keys.supplier,
        method: 'PATCH',
        body: { events: ['order.created', 'order.updated'], status: 'disabled' },
      });
      expect(patched.status).toBe(200);
      expect(field(patched.json, 'status')).toBe('disabled');
      expect(field(patched.json, 'events')).toEqual(['order.created', 'order.updated']);
      const badStatus = await call(`${url}/${id}`, {
        key: sandbox.keys.supplier,
        method: 'PATCH',
        body: { status: 'failing' },
      });
      expect(badStatus.status).toBe(422);
      const unknownOnPatch = await call(`${url}/${id}`, {
        key: sandbox.keys.supplier,
        method: 'PATCH',
        body: { status: 'active', colour: 'blue' },
      });
      expect(unknownOnPatch.status).toBe(422);
      expect(field(unknownOnPatch.json, 'errors', 0)).toMatchObject({
        field: 'colour',
        code: 'unsupported_value',
      });
      const unknownOnCreate = await call(url, {
        key: sandbox.keys.supplier,
        body: { url: 'https://erp.example.test/other', events: ['ping'], colour: 'blue' },
      });
      expect(unknownOnCreate.status).toBe(422);
      expect(field(unknownOnCreate.json, 'errors', 0)).toMatchObject({
        field: 'colour',
        code: 'unsupported_value',
      });
      expect((await call(`${url}/${id}`, { key: sandbox.keys.buyer })).status).toBe(404);
      expect((await call(`${url}/${id}`, { key: sandbox.keys.supplier, method: 'DELETE' })).status).toBe(204);
      expect((await call(`${url}/${id}`, { key: sandbox.keys.supplier })).status).toBe(404);
      expect((await call(url, { key: sandbox.keys.readOnly })).status).toBe(403);
      for (let i = 0; i < 10; i++) await createEndpoint(sandbox, `https://erp.example.test/${i}`, ['ping']);
      const eleventh = await call(url, {
        key: sandbox.keys.supplier,
        body: { url: 'https://erp.example.test/11', events: ['ping'] },
      });
      expect(field(eleventh.json, 'errors', 0, 'code')).toBe('limit_reached');
    });
    await withSandbox({ allowHttpWebhooks: true }, async (sandbox) => {
      await createEndpoint(sandbox, 'http://127.0.0.1:9/hooks', ['ping']);
      await createEndpoint(sandbox, 'http://localhost:9/hooks', ['ping']);
      const remote = await call(`${sandbox.baseUrl}/webhooks`, {
        key: sandbox.keys.supplier,
        body: { url: 'http://example.com/hooks', events: ['ping'] },
      });
      expect(remote.status).toBe(422);
    });
  });

  it('delivers a signed envelope to subscribed endpoints of the account only', async () => {
    const receiver = await startReceiver();
    const other = await startReceiver();
    try {
      await withSandbox({ allowHttpWebhooks: true }, async (sandbox) => {
        const endpoint = await createEndpoint(sandbox, receiver.url, ['document.received']);
        await createEndpoint(sandbox, other.url, ['order.created']);
        await createEndpoint(sandbox, other.url, ['document.received'], sandbox.keys.buyer);
        const thingId = await raiseThing(sandbox, 'signed-1');
        await waitFor(() => (receiver.received.length > 0 ? true : undefined));
        const hit = receiver.received[0];
        if (!hit) throw new Error('no delivery');
        const header = String(hit.headers['service-signature']);
        expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
        const check = verifySignature(header, hit.raw, endpoint.secret);
        expect(check.ok).toBe(true);
        expect(Math.abs(check.t - Date.now() / 1000)).toBeLessThan(300);
        expect(verifySignature(header, hit.raw, 'whsec_wrong').ok).toBe(false);
        // An independent signer of the same scheme produces the same header.
        const stripeHeader = Stripe.webhooks.generateTestHeaderString({
          payload: hit.raw.toString('utf8'),
          secret: endpoint.secret,
          timestamp: check.t,
        });
        expect(stripeHeader).toBe(header);
        expect(envelopeOf(receiver, 0)).toMatchObject({
          id: expect.stringMatching(/^evt_/),
          type: 'document.received',
          api_version: '2',
          occurred_at: expect.stringMatching(/Z$/),
          account_id: 'acc_demo_supplier',
          data: { object: 'document', id: thingId },
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(other.received).toHaveLength(0);
      });
    } finally {
      await receiver.close();
      await other.close();
    }
  });

  it('retries failed deliveries on the compressed schedule with one event id, failing then active again', async () => {
    const receiver = await startReceiver((index) => (index < 2 ? 500 : 200));
    const clock = createManualClock();
    try {
      await withSandbox({ allowHttpWebhooks: true, timeScale: 600, clock }, async (sandbox) => {
        const endpoint = await createEndpoint(sandbox, receiver.url, ['document.received']);
        const endpointStatus = async () =>
          field(
            (await call(`${sandbox.baseUrl}/webhooks/${endpoint.id}`, { key: sandbox.keys.supplier })).json,
            'status',
          );
        const attemptsDone = async (count: number) => {
          const rows = field((await deliveries(sandbox, endpoint.id)).json, 'data') as { status: string }[];
          return rows.filter((row) => row.status !== 'pending').length >= count ? true : undefined;
        };
        await raiseThing(sandbox, 'retry-1');
        await waitFor(() => attemptsDone(1));
        expect(await endpointStatus()).toBe('failing');
        // 1 min / 600 = 100 ms of sandbox time: not yet due at 99 ms, due at 100 ms.
        await sandbox.control.advanceClock(99);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(receiver.received).toHaveLength(1);
        await sandbox.control.advanceClock(1);
        await waitFor(() => attemptsDone(2));
        expect(await endpointStatus()).toBe('failing');
        // Then 5 min / 600 = 500 ms.
        await sandbox.control.advanceClock(500);
        await waitFor(() => attemptsDone(3));
        expect(await endpointStatus()).toBe('active');
        const ids = receiver.received.map((_, i) => envelopeOf(receiver, i)['id']);
        expect(ids).toHaveLength(3);
        expect(new Set(ids).size).toBe(1);
        const list = field((await deliveries(sandbox, endpoint.id)).json, 'data') as {
          attempt: number;
          status: string;
          next_retry_at: string | null;
          response_status: number | null;
        }[];
        expect(list.map((row) => [row.attempt, row.status, row.response_status])).toEqual([
          [1, 'failed', 500],
          [2, 'failed', 500],
          [3, 'succeeded', 200],
        ]);
        const retryAt = list.map((row) => Date.parse(row.next_retry_at ?? ''));
        expect((retryAt[1] ?? 0) - (retryAt[0] ?? 0)).toBe(500);
        expect(list[2]?.next_retry_at).toBeNull();
        const after = await call(`${sandbox.baseUrl}/webhooks/${endpoint.id}`, {
          key: sandbox.keys.supplier,
        });
        expect(field(after.json, 'consecutive_failures')).toBe(0);
        const failedOnly = await deliveries(sandbox, endpoint.id, 'status=failed&limit=1');
        expect(field(failedOnly.json, 'data')).toHaveLength(1);
        expect(field(failedOnly.json, 'has_more')).toBe(true);
        const next = await deliveries(
          sandbox,
          endpoint.id,
          `status=failed&limit=1&cursor=${String(field(failedOnly.json, 'next_cursor'))}`,
        );
        expect(field(next.json, 'data', 0, 'attempt')).toBe(2);
        expect(field(next.json, 'has_more')).toBe(false);
      });
    } finally {
      await receiver.close();
    }
  });

  it('stops after 8 attempts and disables the endpoint after the failure window, announcing webhook.disabled', async () => {
    const failing = await startReceiver(() => 503);
    const watcher = await startReceiver();
    try {
      await withSandbox({ allowHttpWebhooks: true, timeScale: 60_000 }, async (sandbox) => {
        const endpoint = await createEndpoint(sandbox, failing.url, ['document.received']);
        await createEndpoint(sandbox, watcher.url, ['webhook.disabled']);
        await raiseThing(sandbox, 'disable-1');
        await waitFor(async () => {
          const response = await call(`${sandbox.baseUrl}/webhooks/${endpoint.id}`, {
            key: sandbox.keys.supplier,
          });
          return field(response.json, 'status') === 'disabled' ? true : undefined;
        }, 10_000);
        await waitFor(() => (watcher.received.length > 0 ? true : undefined));
        expect(envelopeOf(watcher, 0)).toMatchObject({
          type: 'webhook.disabled',
          data: { object: 'webhook', id: endpoint.id, url: failing.url },
        });
        expect(failing.received).toHaveLength(8);
        const rows = field((await deliveries(sandbox, endpoint.id)).json, 'data') as {
          attempt: number;
          next_retry_at: string | null;
        }[];
        expect(rows.map((row) => row.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
        expect(rows[7]?.next_retry_at).toBeNull();
      });
    } finally {
      await failing.close();
      await watcher.close();
    }
  });

  it('redelivers with the same event id and answers 202', async () => {
    const receiver = await startReceiver();
    try {
      await withSandbox({ allowHttpWebhooks: true }, async (sandbox) => {
        const endpoint = await createEndpoint(sandbox, receiver.url, ['document.received']);
        await raiseThing(sandbox, 'redeliver-1');
        await waitFor(() => (receiver.received.length > 0 ? true : undefined));
        const first = field((await deliveries(sandbox, endpoint.id)).json, 'data', 0) as {
          id: string;
          event_id: string;
        };
        const redeliver = await call(
          `${sandbox.baseUrl}/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`,
          { key: sandbox.keys.supplier, method: 'POST' },
        );
        expect(redeliver.status).toBe(202);
        expect(redeliver.text).toBe('');
        await waitFor(() => (receiver.received.length > 1 ? true : undefined));
        expect(envelopeOf(receiver, 1)['id']).toBe(first.event_id);
        expect(envelopeOf(receiver, 0)['id']).toBe(first.event_id);
        const missing = await call(
          `${sandbox.baseUrl}/webhooks/${endpoint.id}/deliveries/whd_nope/redeliver`,
          { key: sandbox.keys.supplier, method: 'POST' },
        );
        expect(missing.status).toBe(404);
      });
    } finally {
      await receiver.close();
    }
  });

  it('sends a signed ping on POST /webhooks/{id}/test and returns the attempt with the endpoint status', async () => {
    const receiver = await startReceiver((index) => (index === 0 ? 200 : 503));
    try {
      await withSandbox({ allowHttpWebhooks: true }, async (sandbox) => {
        const endpoint = await createEndpoint(sandbox, receiver.url, ['order.created']);
        const ping = await call(`${sandbox.baseUrl}/webhooks/${endpoint.id}/test`, {
          key: sandbox.keys.supplier,
          method: 'POST',
        });
        expect(ping.status).toBe(200);
        expect(ping.json).toMatchObject({
          event_type: 'ping',
          attempt: 1,
          status: 'succeeded',
          response_status: 200,
          response_snippet: 'received 0',
        });
        expect(envelopeOf(receiver, 0)).toMatchObject({ type: 'ping', data: { object: 'ping' } });
        const hit = receiver.received[0];
        expect(
          verifySignature(
            String(hit?.headers['service-signature']),
            hit?.raw ?? Buffer.alloc(0),
            endpoint.secret,
          ).ok,
        ).toBe(true);
        const failed = await call(`${sandbox.baseUrl}/webhooks/${endpoint.id}/test`, {
          key: sandbox.keys.supplier,
          method: 'POST',
        });
        expect(failed.json).toMatchObject({ status: 'failed', response_status: 503 });
      });
    } finally {
      await receiver.close();
    }
  });

  it('injects duplicate, out-of-order and clock-skewed deliveries on request', async () => {
    const receiver = await startReceiver();
    try {
      await withSandbox({ allowHttpWebhooks: true }, async (sandbox) => {
        const endpoint = await createEndpoint(sandbox, receiver.url, ['document.received']);
        await call(`${sandbox.controlUrl}/faults`, {
          body: { webhook_duplicate_rate: 1, signature_skew_seconds: -600 },
        });
        await raiseThing(sandbox, 'dup-1');
        await waitFor(() => (receiver.received.length >= 2 ? true : undefined));
        expect(envelopeOf(receiver, 0)['id']).toBe(envelopeOf(receiver, 1)['id']);
        const skewed = verifySignature(
          String(receiver.received[0]?.headers['service-signature']),
          receiver.received[0]?.raw ?? Buffer.alloc(0),
          endpoint.secret,
        );
        expect(skewed.ok).toBe(true);
        expect(Date.now() / 1000 - skewed.t).toBeGreaterThan(590);

        await call(`${sandbox.controlUrl}/faults`, {
          body: { webhook_reorder: 1, webhook_reorder_delay_ms: 1000 },
        });
        const heldBack = await raiseThing(sandbox, 'order-a');
        expect((await call(`${sandbox.controlUrl}/faults`, { method: 'DELETE' })).status).toBe(204);
        const overtaking = await raiseThing(sandbox, 'order-b');
        await waitFor(() => (receiver.received.length >= 4 ? true : undefined));
        const order = [2, 3].map((i) => (envelopeOf(receiver, i)['data'] as { id: string }).id);
        expect(order).toEqual([overtaking, heldBack]);
      });
    } finally {
      await receiver.close();
    }
  });
});
