import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import type { ApiClient } from '../../src/client/index.js';
import { createOpsMetrics, createOpsServer } from '../../src/ops/index.js';
import type { OpsServer } from '../../src/ops/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { openStateStore } from '../../src/state/index.js';
import type { SqliteStateStore } from '../../src/state/index.js';
import { systemClock } from '../../src/shared/clock.js';
import {
  createWebhookReceiver,
  recoverWebhookDeliveries,
  registerWebhook,
  testWebhook,
  WalSyncedInbox,
  webhookApiFromClient,
  WebhookSecretStore,
} from '../../src/webhooks/index.js';

/** The sandbox signs with its own implementation; this checks both ends agree over real HTTP. */
describe('webhook commands and receiver against the sandbox', () => {
  let sandbox: RunningSandbox;
  let dir: string;
  let state: SqliteStateStore;
  let inbox: WalSyncedInbox;
  let ops: OpsServer;
  let client: ApiClient;
  let opsUrl: string;
  const rejected: string[] = [];
  /** Simulates downtime: while false, every delivery is refused. */
  let accepting = true;

  beforeAll(async () => {
    sandbox = await startSandbox({ allowHttpWebhooks: true });
    dir = mkdtempSync(join(tmpdir(), 'supply-sync-webhook-sandbox-'));
    state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
    inbox = WalSyncedInbox.open({ file: state.file });
    const secrets = new WebhookSecretStore(state.kv);
    const metrics = createOpsMetrics();
    const receiver = createWebhookReceiver({
      inbox,
      secrets: () => (accepting ? secrets.activeSecrets() : []),
      observer: {
        ...metrics.webhookObserver,
        rejected: (reason) => {
          rejected.push(reason);
          metrics.webhookObserver.rejected(reason);
        },
      },
    });
    ops = createOpsServer({
      port: 0,
      metrics,
      webhook: { path: '/webhooks', receiver },
      providers: {
        checkStateWritable: () => undefined,
        api: () => ({}),
        connectors: () => [],
        jobs: () => [],
      },
    });
    opsUrl = (await ops.listen()).url;
    client = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.supplier });
  });

  afterAll(async () => {
    await ops?.close();
    await inbox?.close();
    state?.close();
    await client?.close();
    await sandbox?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('registers the endpoint, keeps the secret, and stores the signed ping', async () => {
    const api = webhookApiFromClient(client.webhooks);
    const secrets = new WebhookSecretStore(state.kv);
    const url = `${opsUrl}/webhooks`;
    const registered = await registerWebhook(api, {
      url,
      events: ['order.created', 'order.updated'],
      secrets,
    });
    expect(registered.created).toBe(true);
    expect(registered.endpoint.secret).toBeUndefined();
    expect(secrets.activeSecrets()).toHaveLength(1);

    const again = await registerWebhook(api, { url, events: ['order.created'], secrets });
    expect(again).toMatchObject({ created: false, endpoint: { id: registered.endpoint.id } });
    expect(secrets.activeSecrets()).toHaveLength(1);

    const ping = await testWebhook(api, registered.endpoint.id);
    expect(ping.response_status).toBe(200);
    expect(rejected).toEqual([]);
    expect(state.inbox.get(ping.event_id)?.type).toBe('ping');
  });

  it('recovers deliveries that failed while the receiver was down', async () => {
    const api = webhookApiFromClient(client.webhooks);
    const [endpoint] = await api.listWebhooks();
    if (endpoint === undefined) throw new Error('the previous test registers the endpoint');
    accepting = false;
    const missed = await testWebhook(api, endpoint.id);
    expect(missed.response_status).toBe(400);
    expect(state.inbox.get(missed.event_id)).toBeNull();
    accepting = true;

    const result = await recoverWebhookDeliveries(api, endpoint.id, {
      isStored: (eventId) => state.inbox.get(eventId) !== null,
    });
    expect(result.redelivered).toContain(missed.event_id);
    for (let i = 0; i < 200 && state.inbox.get(missed.event_id) === null; i++) {
      sandbox.tick();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(state.inbox.get(missed.event_id)?.type).toBe('ping');
  });

  it('queues one new attempt for a failed delivery however often its redelivery is asked for', async () => {
    const api = webhookApiFromClient(client.webhooks);
    const [endpoint] = await api.listWebhooks();
    if (endpoint === undefined) throw new Error('the first test registers the endpoint');
    accepting = false;
    const missed = await testWebhook(api, endpoint.id);
    expect(missed.status).toBe('failed');
    // The command asked twice for the same failed attempt (repeated, or re-run by the next leader): the second
    // request carries the first one's Idempotency-Key, so the API replays it instead of queueing another attempt.
    await api.redeliver(endpoint.id, missed.id);
    await api.redeliver(endpoint.id, missed.id);
    const attempts = async () => {
      const found = [];
      for await (const delivery of api.listDeliveries(endpoint.id))
        if (delivery.event_id === missed.event_id) found.push(delivery);
      return found;
    };
    for (let i = 0; i < 200 && (await attempts()).some((d) => d.status !== 'failed'); i++) {
      sandbox.tick();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    accepting = true;
    expect((await attempts()).map((d) => d.attempt).sort()).toEqual([1, 2]);
  });
});
