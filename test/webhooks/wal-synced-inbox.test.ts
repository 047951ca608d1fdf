import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import type { SqliteStateStore } from '../../src/state/index.js';
import type { InboxStore, WebhookEvent } from '../../src/webhooks/index.js';
import {
  createWebhookReceiver,
  openDaemonInbox,
  signatureHeader,
  WalSyncedInbox,
  WebhookDispatcher,
} from '../../src/webhooks/index.js';
import { eventBody, fixedClock, post, serveReceiver } from './support.js';

const SECRET = 'whsec_wal_synced';
const NOW_S = 1_795_000_000;

const event = (id: string): WebhookEvent => ({
  id,
  type: 'order.created',
  occurredAt: '2026-11-22T08:00:00Z',
  payload: Buffer.from(eventBody(id)),
});

describe('WalSyncedInbox', () => {
  const clock = fixedClock(NOW_S * 1000);
  let dir: string;
  let state: SqliteStateStore;
  let inbox: WalSyncedInbox;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'supply-sync-wal-inbox-'));
    state = openStateStore({ file: join(dir, 'state.db'), clock });
    inbox = WalSyncedInbox.open({ file: state.file, clock });
  });

  afterEach(async () => {
    await inbox.close();
    state.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('stores concurrent webhook requests once each, visible to the daemon connection, then dispatches them', async () => {
    const triggered: string[] = [];
    const dispatcher = new WebhookDispatcher({
      inbox,
      mapping: { 'order.created': ['orders'] },
      trigger: (_job, cause) => {
        triggered.push(...cause.eventIds);
      },
    });
    const receiver = createWebhookReceiver({
      inbox,
      secrets: [SECRET],
      clock,
      maxCommitsInFlight: 4,
      onStored: () => dispatcher.kick(),
    });
    const server = await serveReceiver(receiver);
    try {
      const ids = Array.from({ length: 60 }, (_, i) => `evt_${i % 40}`);
      const answers = await Promise.all(
        ids.map((id) => {
          const body = eventBody(id);
          return post(server.url, body, {
            'service-signature': signatureHeader([SECRET], NOW_S, Buffer.from(body)),
          });
        }),
      );
      expect(answers.every((answer) => answer.status === 200)).toBe(true);
      expect(answers.filter((answer) => (answer.body as { duplicate: boolean }).duplicate)).toHaveLength(20);
      expect(state.inbox.counts().pending + state.inbox.counts().dispatched).toBe(40);
      expect(state.inbox.get('evt_7')?.receivedAt).toBe(NOW_S * 1000);
      await dispatcher.idle();
      expect(new Set(triggered).size).toBe(40);
      expect(triggered).toHaveLength(40);
      expect(state.inbox.counts()).toEqual({ pending: 0, dispatched: 40 });
    } finally {
      await server.close();
    }
  });

  it('refuses a state file that is not in WAL mode', async () => {
    const other = openStateStore({ file: join(dir, 'other.db'), clock, lock: false });
    other.db.pragma('journal_mode = DELETE');
    other.close();
    expect(() => WalSyncedInbox.open({ file: join(dir, 'other.db') })).toThrow(/not in WAL mode/);
  });

  it('is what the daemon opens on a WAL state file, and the state store inbox otherwise', async () => {
    const daemonInbox = openDaemonInbox(state, clock);
    expect(daemonInbox).toBeInstanceOf(WalSyncedInbox);
    await daemonInbox.insertMany([event('evt_wal')]);
    await daemonInbox.close();
    expect(state.inbox.get('evt_wal')).not.toBeNull();

    const other = openStateStore({ file: join(dir, 'other.db'), clock, lock: false });
    try {
      other.db.pragma('journal_mode = DELETE');
      const fallback = openDaemonInbox(other, clock);
      expect(fallback).not.toBeInstanceOf(WalSyncedInbox);
      expect(await fallback.insertMany([event('evt_delete')])).toEqual(new Set(['evt_delete']));
      await fallback.close();
      expect(other.inbox.get('evt_delete')).not.toBeNull();
    } finally {
      other.close();
    }
  });
});

describe('receiver durability ordering', () => {
  it('does not answer until the inbox insert has resolved', async () => {
    let release: (ids: ReadonlySet<string>) => void = () => undefined;
    let inserted: readonly WebhookEvent[] = [];
    const inbox: InboxStore = {
      insertMany: (events) => {
        inserted = events;
        return new Promise((resolve) => (release = resolve));
      },
      listUndispatched: () => [],
      markDispatched: () => undefined,
    };
    const receiver = createWebhookReceiver({ inbox, secrets: [SECRET], clock: fixedClock(NOW_S * 1000) });
    const server = await serveReceiver(receiver);
    try {
      const body = eventBody('evt_slow');
      let answered = false;
      const response = post(server.url, body, {
        'service-signature': signatureHeader([SECRET], NOW_S, Buffer.from(body)),
      }).then((r) => {
        answered = true;
        return r;
      });
      while (inserted.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(answered).toBe(false);
      release(new Set(['evt_slow']));
      expect((await response).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
