/**
 * Bounded event retention at volume (an export raises one event per completed document), and the state file's
 * domain snapshot stored in parts, so a large domain saves and loads whole.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createManualClock } from '../../../src/sandbox/platform/manual-clock.js';
import { MonotonicTimestamps } from '../../../src/sandbox/http/paging.js';
import { PlatformState } from '../../../src/sandbox/platform/state.js';
import type { PlatformContext } from '../../../src/sandbox/platform/context.js';
import { WebhookDispatcher } from '../../../src/sandbox/webhooks/dispatcher.js';
import { StateFile } from '../../../src/sandbox/platform/persistence.js';

const KEPT = 20_000;

function dispatcherWithState(): { dispatcher: WebhookDispatcher; state: PlatformState } {
  const state = new PlatformState();
  const clock = createManualClock();
  const ctx = {
    state,
    clock,
    stamps: new MonotonicTimestamps(() => clock.now()),
    markDirty: () => undefined,
    kick: () => undefined,
  } as unknown as PlatformContext;
  return { dispatcher: new WebhookDispatcher(ctx), state };
}

const raiseMany = (dispatcher: WebhookDispatcher, from: number, count: number) => {
  for (let n = from; n < from + count; n++)
    dispatcher.enqueue({ type: 'order.created', accountId: 'acc_a', data: { object: 'order', id: `o${n}` } });
};
const keptIds = (state: PlatformState) => [...state.events.values()].map((event) => event.data.id);
const range = (from: number, count: number) => Array.from({ length: count }, (_, i) => `o${from + i}`);

describe('event retention', () => {
  it('keeps exactly the newest events, also after the map is cleared or replaced', () => {
    const { dispatcher, state } = dispatcherWithState();
    raiseMany(dispatcher, 0, KEPT + 5_000);
    expect(keptIds(state)).toEqual(range(5_000, KEPT));

    state.events.clear();
    raiseMany(dispatcher, 100_000, KEPT + 3);
    expect(keptIds(state)).toEqual(range(100_003, KEPT));

    state.events = new Map([...state.events].slice(0, 10));
    raiseMany(dispatcher, 200_000, KEPT);
    expect(keptIds(state)).toEqual(range(200_000, KEPT));
    expect(state.events.size).toBe(KEPT);
  });
});

describe('state file domain parts', () => {
  let dir = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sandbox-parts-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const platform = { version: 1 } as unknown as Parameters<StateFile['save']>[0];

  it('saves a record of many rows in chunks and loads it back whole, in order', () => {
    const lines: Record<string, { id: string; n: number }> = {};
    for (let n = 0; n < 120_001; n++) lines[`jl_${n}`] = { id: `jl_${n}`, n };
    const domain = { version: 1, nextId: 7, lines, small: { a: 1 }, list: [1, 2] };
    const path = join(dir, 'state.sqlite');
    const file = new StateFile(path);
    file.save(platform, domain);
    file.save(platform, domain);
    file.close();

    const db = new Database(path, { readonly: true });
    const names = (db.prepare('SELECT name FROM snapshot').all() as { name: string }[]).map(
      (row) => row.name,
    );
    db.close();
    expect(names.filter((name) => name.startsWith('domain.lines#'))).toHaveLength(3);

    const reopened = new StateFile(path);
    const loaded = reopened.load();
    reopened.close();
    expect(loaded?.domain).toEqual(domain);
    expect(Object.keys((loaded?.domain as typeof domain).lines)).toEqual(Object.keys(lines));
  });

  it('loads a file written with the domain in one row', () => {
    const path = join(dir, 'legacy.sqlite');
    const db = new Database(path);
    db.exec('CREATE TABLE snapshot (name TEXT PRIMARY KEY, json TEXT NOT NULL);');
    db.exec('CREATE TABLE blob (id TEXT PRIMARY KEY, data BLOB NOT NULL);');
    db.prepare('INSERT INTO snapshot (name, json) VALUES (?, ?)').run('platform', '{"version":1}');
    db.prepare('INSERT INTO snapshot (name, json) VALUES (?, ?)').run('domain', '{"version":1,"nextId":3}');
    db.close();
    const file = new StateFile(path);
    expect(file.load()?.domain).toEqual({ version: 1, nextId: 3 });
    file.close();
  });
});
