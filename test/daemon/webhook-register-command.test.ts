/**
 * `webhooks register` carried out for a queued command is keyed by that command, against the sandbox over HTTP: an
 * attempt whose create reached the API but whose answer was lost is followed by the same command's next attempt,
 * which replays the create (one endpoint, its secret stored); a further attempt of the same command answers as the
 * first did and sends nothing; a new command for the same URL updates that endpoint. Never a second endpoint.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiClient, type ApiClient } from '../../src/client/index.js';
import type { ControlAction } from '../../src/daemon/control/actions.js';
import { carryOutEffect, type EffectContext } from '../../src/daemon/control/effect-actions.js';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { WebhookSecretStore, webhookApiFromClient, type WebhookApi } from '../../src/webhooks/index.js';

const URL_OF_DAEMON = 'http://127.0.0.1:9/webhooks';
const ACTION: ControlAction = { kind: 'webhooks.register', url: URL_OF_DAEMON, events: ['order.created'] };

let sandbox: RunningSandbox;
let client: ApiClient;
let api: WebhookApi;
let state: StateStore;
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-keyed-register-'));

beforeAll(async () => {
  sandbox = await startSandbox({ allowHttpWebhooks: true });
  client = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.supplier });
  api = webhookApiFromClient(client.webhooks);
  state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
});
afterAll(async () => {
  state?.close();
  await client?.close();
  await sandbox?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Counts every call that reaches the API; `loseCreate`: the create is made, its answer never arrives. */
function counted(loseCreate = false) {
  const calls: string[] = [];
  const wrapped: WebhookApi = {
    ...api,
    listWebhooks: () => (calls.push('list'), api.listWebhooks()),
    createWebhook: async (body, options) => {
      calls.push(`create ${options?.idempotencyKey ?? 'unkeyed'}`);
      const created = await api.createWebhook(body, options);
      if (loseCreate) throw new Error('socket hang up');
      return created;
    },
    updateWebhook: (id, body) => (calls.push(`update ${id}`), api.updateWebhook(id, body)),
  };
  return { calls, api: wrapped };
}

function context(webhookApi: WebhookApi, command: { id: number; takenBefore: boolean }): EffectContext {
  return {
    state,
    file: 'supply-sync.yaml',
    jobs: [],
    timeZone: 'UTC',
    by: 'api:olga@127.0.0.1',
    runJob: () => Promise.reject(new Error('no run')),
    webhookApi: () => webhookApi,
    command: { id: command.id, requestedAt: 1_790_000_000_000, takenBefore: command.takenBefore },
  };
}

const endpointsForUrl = async () => (await api.listWebhooks()).filter((e) => e.url === URL_OF_DAEMON);

describe('a webhook registration keyed by its command', () => {
  it('registers once across attempts of one command and a new command', { timeout: 60_000 }, async () => {
    const secrets = new WebhookSecretStore(state.kv);
    const lost = counted(true);
    await expect(carryOutEffect(ACTION, context(lost.api, { id: 41, takenBefore: false }))).rejects.toThrow(
      'socket hang up',
    );
    const [made] = await endpointsForUrl();
    expect(made).toBeDefined();
    expect(secrets.entries()).toEqual([]);

    // The same command taken again: the create is replayed under its key, the API answers with the secret.
    const retried = counted();
    const second = await carryOutEffect(ACTION, context(retried.api, { id: 41, takenBefore: true }));
    expect(second).toMatchObject({ created: true, endpoint: { id: made?.id } });
    expect(retried.calls).toEqual(['list', 'create supply-sync-command-41-1790000000000']);
    expect(secrets.entries().map((e) => e.endpointId)).toEqual([made?.id]);

    // Taken once more (its daemon stopped before recording it done): answered as before, nothing sent.
    const again = counted();
    expect(await carryOutEffect(ACTION, context(again.api, { id: 41, takenBefore: true }))).toEqual(second);
    expect(again.calls).toEqual([]);

    // A new command for the same URL updates the endpoint this one made.
    const next = counted();
    const third = await carryOutEffect(ACTION, context(next.api, { id: 42, takenBefore: false }));
    expect(third).toMatchObject({ created: false, endpoint: { id: made?.id } });
    expect(next.calls).toEqual(['list', `update ${made?.id}`]);

    expect((await endpointsForUrl()).map((e) => e.id)).toEqual([made?.id]);
  });
});
