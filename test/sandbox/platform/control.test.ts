import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/sandbox/index.js';
import { call, field, startReceiver, waitFor, withSandbox } from './fixtures.js';

describe('sandbox control plane', () => {
  it('forwards actions to the domain, delivers their events and reports unknown actions as 404', async () => {
    const receiver = await startReceiver();
    try {
      await withSandbox({ allowHttpWebhooks: true }, async (sandbox, store) => {
        await call(`${sandbox.baseUrl}/webhooks`, {
          key: sandbox.keys.buyer,
          body: { url: receiver.url, events: ['order.updated'] },
        });
        const done = await call(`${sandbox.controlUrl}/actions/touch`, { body: {} });
        expect(done.status).toBe(200);
        expect(done.json).toEqual({ touched: 'itm_000' });
        expect(store.actionsRun).toBe(1);
        await waitFor(() => (receiver.received.length > 0 ? true : undefined));
        expect((await call(`${sandbox.controlUrl}/actions/nope`, { body: {} })).status).toBe(404);
        expect(field((await call(`${sandbox.controlUrl}/actions`)).json, 'actions')).toContain('touch');
      });
    } finally {
      await receiver.close();
    }
  });

  it('reads out domain and platform state without webhook secrets', async () => {
    await withSandbox({}, async (sandbox) => {
      await call(`${sandbox.baseUrl}/webhooks`, {
        key: sandbox.keys.supplier,
        body: { url: 'https://erp.example.test/h', events: ['ping'] },
      });
      const state = await call(`${sandbox.controlUrl}/state`);
      expect(field(state.json, 'items')).toHaveLength(25);
      expect(field(state.json, 'platform', 'webhooks')).toHaveLength(1);
      expect(state.text).not.toContain('whsec_');
      expect(state.text).not.toContain(sandbox.keys.supplier);
    });
  });

  it('advances a manual clock and refuses to with the system clock', async () => {
    const clock = createManualClock(Date.UTC(2026, 0, 1));
    await withSandbox({ clock }, async (sandbox) => {
      const moved = await call(`${sandbox.controlUrl}/clock`, { body: { advance_ms: 90_000 } });
      expect(field(moved.json, 'now')).toBe('2026-01-01T00:01:30.000Z');
      expect((await call(`${sandbox.controlUrl}/clock`, { body: { advance_ms: -1 } })).status).toBe(422);
    });
    await withSandbox({}, async (sandbox) => {
      expect((await call(`${sandbox.controlUrl}/clock`, { body: { advance_ms: 1000 } })).status).toBe(409);
    });
  });

  it('runs domain actions at a steady rate until stopped', async () => {
    await withSandbox({}, async (sandbox, store) => {
      const started = await call(`${sandbox.controlUrl}/simulate`, {
        body: { actions_per_second: 100, mix: { touch: 1 } },
      });
      expect(field(started.json, 'running')).toBe(true);
      await waitFor(() => (store.actionsRun >= 5 ? true : undefined));
      const stopped = await call(`${sandbox.controlUrl}/simulate`, { method: 'DELETE' });
      expect(field(stopped.json, 'running')).toBe(false);
      const count = store.actionsRun;
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(store.actionsRun).toBe(count);
      expect(
        (await call(`${sandbox.controlUrl}/simulate`, { body: { mix: { unknown_action: 1 } } })).status,
      ).toBe(422);
    });
  });

  it('offers the same calls through the typed control client on the running sandbox', async () => {
    await withSandbox({}, async (sandbox, store) => {
      expect(await sandbox.control.action('touch')).toEqual({ touched: 'itm_000' });
      expect(store.actionsRun).toBe(1);
      const faults = await sandbox.control.setFaults({ rate_limit_burst: 1 });
      expect(faults.rate_limit_burst).toBe(1);
      expect((await call(`${sandbox.baseUrl}/me`, { key: sandbox.keys.supplier })).status).toBe(429);
      await sandbox.control.clearFaults();
      expect(field(await sandbox.control.state(), 'platform', 'events')).toBe(1);
      await sandbox.control.reset();
      expect(field(await sandbox.control.state(), 'platform', 'events')).toBe(0);
      await expect(sandbox.control.advanceClock(1000)).rejects.toThrow(/409/);
      await expect(sandbox.control.action('missing')).rejects.toThrow(/404/);
    });
  });
});
