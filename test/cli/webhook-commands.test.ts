import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import {
  recoverWebhookDeliveries,
  registerWebhook,
  testWebhook,
  WebhookSecretStore,
  webhookApiFromClient,
} from '../../src/webhooks/index.js';

let sandbox: RunningSandbox;
let receiver: Server;
let receiverUrl: string;
let state: StateStore;
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-webhooks-'));
const received: string[] = [];

beforeAll(async () => {
  sandbox = await startSandbox({ allowHttpWebhooks: true });
  receiver = createServer((req, res) => {
    received.push(String(req.headers['service-signature'] ?? ''));
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
});

afterAll(async () => {
  state.close();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await sandbox.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('webhook commands through the API client adapter, against the sandbox over HTTP', () => {
  it(
    'registers once, keeps the secret only in the state file, pings, and finds nothing to recover',
    { timeout: 60_000 },
    async () => {
      const client = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.supplier });
      try {
        const api = webhookApiFromClient(client.webhooks);
        const secrets = new WebhookSecretStore(state.kv);
        const first = await registerWebhook(api, { url: receiverUrl, events: ['order.created'], secrets });
        expect(first.created).toBe(true);
        expect(first.endpoint).not.toHaveProperty('secret');
        expect(secrets.activeSecrets()).toHaveLength(1);
        const again = await registerWebhook(api, {
          url: receiverUrl,
          events: ['order.created', 'order.updated'],
          secrets,
        });
        expect(again).toMatchObject({ created: false, endpoint: { id: first.endpoint.id } });
        expect(again.endpoint.events).toEqual(['order.created', 'order.updated']);

        const ping = await testWebhook(api, first.endpoint.id);
        expect(ping).toMatchObject({ status: 'succeeded', response_status: 204 });
        expect(received.at(-1)).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);

        const recovered = await recoverWebhookDeliveries(api, first.endpoint.id, { dryRun: true });
        expect(recovered).toMatchObject({ reactivated: false, failed: [], redelivered: [] });
      } finally {
        await client.close();
      }
    },
  );
});
