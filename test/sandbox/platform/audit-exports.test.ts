import { describe, expect, it } from 'vitest';
import { call, field, waitFor, withSandbox } from './fixtures.js';

describe('sandbox audit log and bulk exports (Enterprise)', () => {
  it('records every request of the account with the query redacted and never the key', async () => {
    await withSandbox({}, async (sandbox) => {
      await call(`${sandbox.baseUrl}/me?api_key=leaked&x=1`, { key: sandbox.keys.enterprise });
      await call(`${sandbox.baseUrl}/branches`, { key: sandbox.keys.basic });
      const audit = await call(`${sandbox.baseUrl}/audit/requests?limit=200`, {
        key: sandbox.keys.enterprise,
      });
      expect(audit.status).toBe(200);
      const rows = field(audit.json, 'data') as Record<string, unknown>[];
      const me = rows.find((row) => row['path'] === '/v2/me');
      expect(me).toMatchObject({
        method: 'GET',
        status: 200,
        client_id: 'cli_enterprise',
        environment: 'sandbox',
        query: 'api_key=%5BREDACTED%5D&x=1',
      });
      expect(rows.find((row) => row['client_id'] === 'cli_basic_plan')).toMatchObject({
        status: 403,
        error_code: 'plan_required',
      });
      for (const key of Object.values(sandbox.keys)) expect(audit.text).not.toContain(key);
      expect(audit.text).not.toContain('leaked');
      const onlyErrors = await call(`${sandbox.baseUrl}/audit/requests?status=403`, {
        key: sandbox.keys.enterprise,
      });
      expect((field(onlyErrors.json, 'data') as unknown[]).length).toBe(1);
    });
  });

  it('runs an export job queued -> running -> completed and serves NDJSON and CSV at signed URLs', async () => {
    await withSandbox({}, async (sandbox, store) => {
      for (const format of ['ndjson', 'csv']) {
        const created = await call(`${sandbox.baseUrl}/exports`, {
          key: sandbox.keys.enterprise,
          body: { resources: ['orders'], format },
        });
        expect(created.status).toBe(202);
        expect(field(created.json, 'status')).toBe('queued');
        const id = String(field(created.json, 'id'));
        const job = await waitFor(async () => {
          const response = await call(`${sandbox.baseUrl}/exports/${id}`, { key: sandbox.keys.enterprise });
          return field(response.json, 'status') === 'completed' ? response.json : undefined;
        });
        expect(field(job, 'files', 0, 'row_count')).toBe(store.items.length);
        const text = await (await fetch(String(field(job, 'files', 0, 'download_url')))).text();
        if (format === 'ndjson') {
          const lines = text
            .trim()
            .split('\n')
            .map((line) => JSON.parse(line) as { id: string });
          expect(lines.map((line) => line.id)).toEqual(store.items.map((item) => item.id));
        } else {
          expect(text.split('\r\n')[0]).toBe('id,name,updated_at');
          expect(text.trim().split('\r\n')).toHaveLength(store.items.length + 1);
        }
      }
      const parquet = await call(`${sandbox.baseUrl}/exports`, {
        key: sandbox.keys.enterprise,
        body: { resources: ['orders'], format: 'parquet' },
      });
      expect(field(parquet.json, 'errors', 0, 'code')).toBe('unsupported_value');
      expect(
        (
          await call(`${sandbox.baseUrl}/exports`, {
            key: sandbox.keys.buyer,
            body: { resources: ['orders'] },
          })
        ).status,
      ).toBe(403);
    });
  });

  it('serves the account event feed (gap G20) paged by occurred_at, filtered by type', async () => {
    await withSandbox({}, async (sandbox) => {
      for (let i = 0; i < 3; i++) await call(`${sandbox.controlUrl}/actions/touch`, { body: {} });
      const all = await call(`${sandbox.baseUrl}/events?limit=2`, { key: sandbox.keys.enterprise });
      expect(all.status).toBe(200);
      expect(field(all.json, 'data')).toHaveLength(2);
      expect(field(all.json, 'data', 0)).toMatchObject({
        type: 'order.updated',
        api_version: '2',
        account_id: 'acc_demo_buyer',
      });
      const rest = await call(
        `${sandbox.baseUrl}/events?limit=2&cursor=${String(field(all.json, 'next_cursor'))}`,
        { key: sandbox.keys.enterprise },
      );
      expect(field(rest.json, 'data')).toHaveLength(1);
      expect(field(rest.json, 'has_more')).toBe(false);
      const none = await call(`${sandbox.baseUrl}/events?types=document.created`, {
        key: sandbox.keys.enterprise,
      });
      expect(field(none.json, 'data')).toEqual([]);
      expect((await call(`${sandbox.baseUrl}/events`, { key: sandbox.keys.buyer })).status).toBe(403);
    });
  });
});
