import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { InboxStore } from '../../src/state/inbox.js';
import { runMigrations } from '../../src/state/migrations.js';
import type { Clock } from '../../src/shared/clock.js';
import type { WebhookReceiver } from '../../src/webhooks/index.js';

export interface TempState {
  db: Database.Database;
  inbox: InboxStore;
  rowCount(): number;
  close(): void;
}

/** A real SQLite state file in a temp directory, migrated, with the state store's inbox. */
export function openTempState(clock: Clock): TempState {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-webhooks-'));
  const db = new Database(join(dir, 'state.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  runMigrations(db, clock);
  return {
    db,
    inbox: new InboxStore(db, clock),
    rowCount: () => (db.prepare('SELECT COUNT(*) AS n FROM inbox').get() as { n: number }).n,
    close: () => {
      if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

export async function serveReceiver(receiver: WebhookReceiver): Promise<TestServer> {
  const server = createServer((req, res) => receiver.handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

export function fixedClock(nowMs: number): Clock & { set(ms: number): void } {
  let now = nowMs;
  return {
    now: () => now,
    sleep: () => Promise.resolve(),
    set: (ms: number) => {
      now = ms;
    },
  };
}

export function eventBody(id: string, type = 'order.created', extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id,
    type,
    api_version: '2',
    occurred_at: '2026-11-22T08:00:00+02:00',
    account_id: 'acc_1',
    data: { object: 'order', id: 'ord_1' },
    ...extra,
  });
}

/** POSTs raw bytes over HTTP; returns the status and parsed JSON body. */
export async function post(
  url: string,
  body: Uint8Array | string,
  headers: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method: 'POST', body, headers });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  return { status: response.status, body: parsed };
}
