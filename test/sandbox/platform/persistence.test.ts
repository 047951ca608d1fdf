import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, field, withSandbox } from './fixtures.js';

describe('sandbox persistence (--state) and reset', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-state-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps keys, webhooks, files, idempotency entries and domain data across a restart', async () => {
    const statePath = join(dir, 'sandbox.sqlite');
    const before = await withSandbox({ statePath }, async (sandbox, store) => {
      const hook = await call(`${sandbox.baseUrl}/webhooks`, {
        key: sandbox.keys.supplier,
        body: { url: 'https://erp.example.test/h', events: ['ping'] },
      });
      const form = new FormData();
      form.set('purpose', 'product_image');
      form.set('file', new Blob(['persisted bytes']), 'image.png');
      const file = await fetch(`${sandbox.baseUrl}/files`, {
        method: 'POST',
        headers: { authorization: `Bearer ${sandbox.keys.supplier}` },
        body: form,
      });
      const fileId = String(field(await file.json(), 'id'));
      const thing = await call(`${sandbox.baseUrl}/supplier/things`, {
        key: sandbox.keys.supplier,
        body: { n: 1 },
        headers: { 'idempotency-key': 'persist-1' },
      });
      await call(`${sandbox.baseUrl}/supplier/items/itm_003`, {
        key: sandbox.keys.supplier,
        method: 'PATCH',
        body: {},
      });
      return {
        keys: sandbox.keys,
        hookId: String(field(hook.json, 'id')),
        fileId,
        thing: thing.text,
        item3: store.items.find((i) => i.id === 'itm_003')?.updated_at,
      };
    });
    await withSandbox({ statePath }, async (sandbox, store) => {
      expect(sandbox.keys).toEqual(before.keys);
      expect((await call(`${sandbox.baseUrl}/me`, { key: before.keys.supplier })).status).toBe(200);
      expect(
        (await call(`${sandbox.baseUrl}/webhooks/${before.hookId}`, { key: sandbox.keys.supplier })).status,
      ).toBe(200);
      const file = await call(`${sandbox.baseUrl}/files/${before.fileId}`, { key: sandbox.keys.supplier });
      const download = await fetch(String(field(file.json, 'download_url')));
      expect(await download.text()).toBe('persisted bytes');
      const replay = await call(`${sandbox.baseUrl}/supplier/things`, {
        key: sandbox.keys.supplier,
        body: { n: 1 },
        headers: { 'idempotency-key': 'persist-1' },
      });
      expect(replay.text).toBe(before.thing);
      expect(store.items.find((i) => i.id === 'itm_003')?.updated_at).toBe(before.item3);
    });
  });

  it('resets to the seed, keeping the keys', async () => {
    await withSandbox({}, async (sandbox, store) => {
      await call(`${sandbox.baseUrl}/webhooks`, {
        key: sandbox.keys.supplier,
        body: { url: 'https://erp.example.test/h', events: ['ping'] },
      });
      await call(`${sandbox.baseUrl}/supplier/items/itm_001`, {
        key: sandbox.keys.supplier,
        method: 'PATCH',
        body: {},
      });
      const patched = store.items.find((i) => i.id === 'itm_001')?.updated_at;
      const reset = await call(`${sandbox.controlUrl}/reset`, { method: 'POST' });
      expect(reset.status).toBe(200);
      const listed = await call(`${sandbox.baseUrl}/webhooks`, { key: sandbox.keys.supplier });
      expect(field(listed.json, 'data')).toEqual([]);
      expect(store.items.find((i) => i.id === 'itm_001')?.updated_at).not.toBe(patched);
      const state = await call(`${sandbox.controlUrl}/state`);
      expect(field(state.json, 'platform', 'idempotency_entries')).toBe(0);
    });
  });
});
