import { describe, expect, it } from 'vitest';
import { idempotencyKey } from '../../src/engine/index.js';
import { KeyValueStore } from '../../src/state/kv.js';
import { redeliveryKey } from '../../src/webhooks/client-adapter.js';
import type { WebhookApi, WebhookDelivery, WebhookEndpoint } from '../../src/webhooks/index.js';
import {
  recoverWebhookDeliveries,
  registerWebhook,
  testWebhook,
  WebhookSecretStore,
} from '../../src/webhooks/index.js';
import { fixedClock, openTempState } from './support.js';

/** An in-memory stand-in for the API's webhook endpoints (contract 4.16), recording the calls made. */
class FakeWebhookApi implements WebhookApi {
  endpoints: WebhookEndpoint[] = [];
  deliveries: WebhookDelivery[] = [];
  calls: string[] = [];
  private nextId = 1;

  listWebhooks(): Promise<readonly WebhookEndpoint[]> {
    this.calls.push('list');
    return Promise.resolve(this.endpoints.map((e) => ({ ...e })));
  }
  /** Create answers by idempotency key: a second create with the same key replays the first answer. */
  private readonly replays = new Map<string, WebhookEndpoint>();

  createWebhook(
    body: {
      url: string;
      events: readonly string[];
      description?: string;
    },
    options?: { idempotencyKey?: string },
  ): Promise<WebhookEndpoint> {
    this.calls.push(options?.idempotencyKey === undefined ? 'create' : `create:${options.idempotencyKey}`);
    const key = options?.idempotencyKey;
    const replayed = key === undefined ? undefined : this.replays.get(key);
    if (replayed !== undefined) return Promise.resolve({ ...replayed });
    const endpoint = { id: `wh_${this.nextId++}`, url: body.url, events: body.events, status: 'active' };
    this.endpoints.push(endpoint);
    const answer = { ...endpoint, secret: `whsec_created_${endpoint.id}` };
    if (key !== undefined) this.replays.set(key, answer);
    return Promise.resolve({ ...answer });
  }
  updateWebhook(id: string, body: Partial<WebhookEndpoint>): Promise<WebhookEndpoint> {
    this.calls.push(`update:${JSON.stringify(body)}`);
    const endpoint = this.endpoints.find((e) => e.id === id);
    if (endpoint === undefined) return Promise.reject(new Error('404'));
    Object.assign(endpoint, body);
    return Promise.resolve({ ...endpoint });
  }
  testWebhook(id: string): Promise<WebhookDelivery> {
    this.calls.push(`test:${id}`);
    return Promise.resolve({
      id: 'del_ping',
      event_id: 'evt_ping',
      event_type: 'ping',
      attempt: 1,
      status: 'succeeded',
      response_status: 200,
    });
  }
  async *listDeliveries(id: string): AsyncIterable<WebhookDelivery> {
    this.calls.push(`deliveries:${id}`);
    for (const delivery of this.deliveries) yield delivery;
  }
  redeliver(id: string, deliveryId: string): Promise<void> {
    this.calls.push(`redeliver:${id}:${deliveryId}`);
    return Promise.resolve();
  }
}

const delivery = (
  id: string,
  eventId: string,
  attempt: number,
  status: string,
  at: string,
): WebhookDelivery => ({
  id,
  event_id: eventId,
  event_type: 'order.created',
  attempt,
  status,
  attempted_at: at,
});

describe('registerWebhook', () => {
  it('creates the endpoint once, keeps its secret in the state file, and updates it on the next run', async () => {
    const clock = fixedClock(1_795_000_000_000);
    const state = openTempState(clock);
    try {
      const api = new FakeWebhookApi();
      const secrets = new WebhookSecretStore(new KeyValueStore(state.db, clock), clock.now);
      const options = { url: 'https://erp.example.test/webhooks', events: ['order.created'], secrets };
      const first = await registerWebhook(api, options);
      expect(first.created).toBe(true);
      expect(JSON.stringify(first)).not.toContain('whsec_');
      expect(secrets.activeSecrets()).toEqual(['whsec_created_wh_1']);
      // A fresh store over the same file sees the secret: it is persisted, not cached.
      expect(new WebhookSecretStore(new KeyValueStore(state.db, clock)).activeSecrets()).toEqual([
        'whsec_created_wh_1',
      ]);

      for (const endpoint of api.endpoints) endpoint.status = 'disabled';
      const second = await registerWebhook(api, { ...options, events: ['order.created', 'order.updated'] });
      expect(second.created).toBe(false);
      expect(api.endpoints).toHaveLength(1);
      expect(api.endpoints[0]).toMatchObject({
        events: ['order.created', 'order.updated'],
        status: 'active',
      });
      expect(secrets.activeSecrets()).toEqual(['whsec_created_wh_1']);
    } finally {
      state.close();
    }
  });
});

describe('registerWebhook for an endpoint whose secret is not in the state', () => {
  const url = 'https://erp.example.test/webhooks';

  it('fails with what to do instead of reporting success with no secret stored', async () => {
    const clock = fixedClock(1_795_000_000_000);
    const state = openTempState(clock);
    try {
      const api = new FakeWebhookApi();
      // Created by an earlier leader that died before storing the secret (or by another state file).
      await api.createWebhook({ url, events: ['order.created'] });
      const secrets = new WebhookSecretStore(new KeyValueStore(state.db, clock), clock.now);
      const attempt = registerWebhook(api, { url, events: ['order.created'], secrets });
      await expect(attempt).rejects.toThrow(/wh_1 .*signing secret is not in the state/);
      await expect(
        registerWebhook(api, {
          url,
          events: ['order.created'],
          secrets,
          idempotencyKey: 'other',
          repeat: false,
        }),
      ).rejects.toThrow(/delete endpoint wh_1 at the API and run `supply-sync webhooks register` again/);
      expect(api.calls.filter((call) => call.startsWith('update') || call.startsWith('create:'))).toEqual([]);
      expect(api.endpoints).toHaveLength(1);
      expect(secrets.activeSecrets()).toEqual([]);
    } finally {
      state.close();
    }
  });

  it('replays the lost create of the same command, by its idempotency key, and stores the secret', async () => {
    const clock = fixedClock(1_795_000_000_000);
    const state = openTempState(clock);
    try {
      const api = new FakeWebhookApi();
      const secrets = new WebhookSecretStore(new KeyValueStore(state.db, clock), clock.now);
      const key = 'supply-sync-command-7-1795000000000';
      // The first leader's create reached the API; its answer (the secret) was lost with the leader.
      await api.createWebhook({ url, events: ['order.created'] }, { idempotencyKey: key });
      const again = await registerWebhook(api, {
        url,
        events: ['order.created'],
        secrets,
        idempotencyKey: key,
        repeat: true,
      });
      expect(again).toMatchObject({ created: true, endpoint: { id: 'wh_1' } });
      expect(JSON.stringify(again)).not.toContain('whsec_');
      expect(api.endpoints).toHaveLength(1);
      expect(secrets.entries()).toMatchObject([{ endpointId: 'wh_1', secret: 'whsec_created_wh_1' }]);
    } finally {
      state.close();
    }
  });
});

describe('WebhookSecretStore', () => {
  it('sees a secret another store of the same state added after it was read', () => {
    const clock = fixedClock(1_000);
    const state = openTempState(clock);
    try {
      const receiver = new WebhookSecretStore(new KeyValueStore(state.db, clock), clock.now);
      expect(receiver.activeSecrets()).toEqual([]);
      new WebhookSecretStore(new KeyValueStore(state.db, clock), clock.now).add('wh_1', 'whsec_new');
      expect(receiver.activeSecrets()).toEqual(['whsec_new']);
    } finally {
      state.close();
    }
  });

  it('keeps old and new secrets during a rotation and retires the older ones', () => {
    const clock = fixedClock(1_000);
    const state = openTempState(clock);
    try {
      const store = new WebhookSecretStore(new KeyValueStore(state.db, clock), clock.now);
      store.add('wh_1', 'whsec_old');
      clock.set(2_000);
      store.add('wh_1', 'whsec_new');
      expect(store.activeSecrets()).toEqual(['whsec_old', 'whsec_new']);
      expect(store.retireOlder()).toBe(1);
      expect(new WebhookSecretStore(new KeyValueStore(state.db, clock)).activeSecrets()).toEqual([
        'whsec_new',
      ]);
    } finally {
      state.close();
    }
  });
});

describe('testWebhook and recoverWebhookDeliveries', () => {
  it('triggers the ping', async () => {
    const api = new FakeWebhookApi();
    expect((await testWebhook(api, 'wh_1')).event_type).toBe('ping');
    expect(api.calls).toEqual(['test:wh_1']);
  });

  it('re-activates a disabled endpoint and redelivers each event whose latest attempt failed, once', async () => {
    const api = new FakeWebhookApi();
    api.endpoints.push({
      id: 'wh_1',
      url: 'https://x.test/h',
      events: ['order.created'],
      status: 'disabled',
    });
    api.deliveries = [
      delivery('d1', 'evt_a', 1, 'failed', '2026-11-21T10:00:00Z'),
      delivery('d2', 'evt_a', 2, 'failed', '2026-11-21T11:00:00Z'),
      delivery('d3', 'evt_b', 1, 'failed', '2026-11-21T10:00:00Z'),
      delivery('d4', 'evt_b', 2, 'succeeded', '2026-11-21T10:30:00Z'),
      delivery('d5', 'evt_c', 1, 'failed', '2026-11-20T09:00:00Z'),
      delivery('d6', 'evt_d', 1, 'failed', '2026-11-21T12:00:00Z'),
    ];
    const result = await recoverWebhookDeliveries(api, 'wh_1', {
      since: new Date('2026-11-21T00:00:00Z'),
      isStored: (eventId) => eventId === 'evt_d',
    });
    expect(result.reactivated).toBe(true);
    expect(result.failed.map((d) => d.id)).toEqual(['d2', 'd6']);
    expect(result.redelivered).toEqual(['evt_a']);
    expect(result.skippedStored).toEqual(['evt_d']);
    expect(api.calls.filter((c) => c.startsWith('redeliver'))).toEqual(['redeliver:wh_1:d2']);
    expect(api.endpoints[0]?.status).toBe('active');
  });

  it('changes nothing in a dry run', async () => {
    const api = new FakeWebhookApi();
    api.endpoints.push({ id: 'wh_1', url: 'https://x.test/h', events: [], status: 'disabled' });
    api.deliveries = [delivery('d1', 'evt_a', 1, 'failed', '2026-11-21T10:00:00Z')];
    const result = await recoverWebhookDeliveries(api, 'wh_1', { dryRun: true });
    expect(result).toMatchObject({ reactivated: false, redelivered: [] });
    expect(result.failed).toHaveLength(1);
    expect(api.calls.some((c) => c.startsWith('redeliver') || c.startsWith('update'))).toBe(false);
  });

  it('names an unknown endpoint', async () => {
    await expect(recoverWebhookDeliveries(new FakeWebhookApi(), 'wh_missing')).rejects.toThrow('wh_missing');
  });
});

describe('the Idempotency-Key of a redelivery', () => {
  it('is webhook-redeliver:<webhook>:<delivery>, and the shared key form when the ids are long or not plain', () => {
    expect(redeliveryKey('wh_1', 'dlv_2')).toBe('webhook-redeliver:wh_1:dlv_2');
    expect(redeliveryKey('wh_1', 'dlv_2')).toBe(idempotencyKey('webhook-redeliver', 'wh_1', 'dlv_2'));
    const long = redeliveryKey('wh_1', 'd'.repeat(200));
    expect(long).toMatch(/^webhook-redeliver:[0-9a-f]{64}$/);
    expect(redeliveryKey('wh:1', 'dlv')).not.toBe(redeliveryKey('wh', '1:dlv'));
  });
});
