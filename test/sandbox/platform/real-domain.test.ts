import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox } from '../../../src/sandbox/index.js';
import type { RunningSandbox, SandboxOptions } from '../../../src/sandbox/index.js';
import { call, field, startReceiver, verifySignature, waitFor } from './fixtures.js';

async function withDefaultSandbox<T>(options: SandboxOptions, run: (sandbox: RunningSandbox) => Promise<T>) {
  const sandbox = await startSandbox(options);
  try {
    return await run(sandbox);
  } finally {
    await sandbox.close();
  }
}

describe('sandbox platform composed with the contract domain', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-domain-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("serves the demo buyer's branches and the supplier's pending orders with the printed keys", async () => {
    await withDefaultSandbox({}, async (sandbox) => {
      const me = await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier });
      expect(field(me.json, 'account', 'id')).toBe('acc_demo_supplier');
      expect(typeof field(me.json, 'account', 'name')).toBe('string');
      const branches = await call(`${sandbox.baseUrl}/branches`, { key: sandbox.keys.buyer });
      expect(branches.status).toBe(200);
      expect((field(branches.json, 'data') as unknown[]).length).toBeGreaterThan(1);
      const pending = await call(`${sandbox.baseUrl}/supplier/orders?status=pending_approval&limit=5`, {
        key: sandbox.keys.supplier,
      });
      expect(pending.status).toBe(200);
      const orders = field(pending.json, 'data') as { status: string }[];
      expect(orders.length).toBeGreaterThan(0);
      for (const order of orders) expect(order.status).toBe('pending_approval');
      expect((await call(`${sandbox.baseUrl}/branches`, { key: sandbox.keys.basic })).status).toBe(403);
      expect((await call(`${sandbox.baseUrl}/supplier/orders`, { key: sandbox.keys.buyer })).status).toBe(
        403,
      );
    });
  });

  it('delivers a signed order.created to the supplier when the buyer sends an order', async () => {
    const receiver = await startReceiver();
    try {
      await withDefaultSandbox({ allowHttpWebhooks: true }, async (sandbox) => {
        const hook = await call(`${sandbox.baseUrl}/webhooks`, {
          key: sandbox.keys.supplier,
          body: { url: receiver.url, events: ['order.created'] },
        });
        const secret = String(field(hook.json, 'secret'));
        const sent = await sandbox.control.action('buyer_send_order', {});
        const orderId = (field(sent, 'order_ids') as string[])[0];
        await waitFor(() => (receiver.received.length > 0 ? true : undefined));
        const hit = receiver.received[0];
        if (!hit) throw new Error('no delivery');
        expect(verifySignature(String(hit.headers['service-signature']), hit.raw, secret).ok).toBe(true);
        const envelope = JSON.parse(hit.raw.toString('utf8')) as Record<string, unknown>;
        expect(envelope).toMatchObject({ type: 'order.created', account_id: 'acc_demo_supplier' });
        expect(field(envelope, 'data', 'id')).toBe(orderId);
      });
    } finally {
      await receiver.close();
    }
  });

  it('keeps domain data across a restart with a state file', async () => {
    const statePath = join(dir, 'sandbox.sqlite');
    const orderId = await withDefaultSandbox({ statePath }, async (sandbox) => {
      const sent = await sandbox.control.action('buyer_send_order', {});
      return String((field(sent, 'order_ids') as string[])[0]);
    });
    await withDefaultSandbox({ statePath }, async (sandbox) => {
      const order = await call(`${sandbox.baseUrl}/supplier/orders/${orderId}`, {
        key: sandbox.keys.supplier,
      });
      expect(order.status).toBe(200);
      expect(field(order.json, 'id')).toBe(orderId);
    });
  });

  it('simulates everyday activity with the default mix without failures', async () => {
    await withDefaultSandbox({}, async (sandbox) => {
      await sandbox.control.simulate({ actions_per_second: 100 });
      await waitFor(async () => {
        const status = field(await sandbox.control.state(), 'platform', 'simulation', 'performed');
        return typeof status === 'number' && status >= 10 ? true : undefined;
      });
      const stopped = await sandbox.control.stopSimulation();
      expect(field(stopped, 'failed')).toBe(0);
    });
  });
});
