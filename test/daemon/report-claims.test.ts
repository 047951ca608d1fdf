/**
 * The office report's queued copy against what the office's database says of the day (ClaimedReports), on a real
 * state file with the claims scripted: a copy goes out only while this process holds the day; another process
 * holding it now means the copy is withdrawn (a message left `sending` by a crash too) and the day is never recorded
 * done from here; this process's own lapsed heartbeats hold the copy back without withdrawing it (also when the
 * holder is gone too: no one else would send it); a held day whose messages all went out is recorded done once,
 * a past day's too.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ClaimedReports,
  type ReportClaim,
  type ReportClaims,
} from '../../src/daemon/office/report-claims.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';

const KEY = 'office_report:2026-11-30';
const opened: Array<{ state: StateStore; dir: string }> = [];

afterEach(() => {
  for (const { state, dir } of opened.splice(0)) {
    state.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

function setUp(claim: () => ReportClaim) {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-report-claims-'));
  const state = openStateStore({ file: join(dir, 'office.db'), clock: systemClock });
  opened.push({ state, dir });
  for (const channel of ['office', 'partners']) {
    state.notifications.enqueue({ dedupKey: KEY, channel, event: 'office_report', message: '{}' });
  }
  const lines: string[] = [];
  const done: string[] = [];
  const claims: ReportClaims = {
    instance: 'here',
    claim: () => Promise.resolve(claim()),
    done: (key) => Promise.resolve(done.push(key) > 0),
  };
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const reports = new ClaimedReports({ claims, queue: state.notifications, logger });
  const statuses = (): string[] => state.notifications.list().map((row) => row.status);
  return { state, reports, lines, done, statuses };
}

describe("the office report's copy and the day's claim", () => {
  it('sends while it holds the day, and records the day done once every message went out', async () => {
    const { state, reports, done } = setUp(() => ({ held: true, token: 't' }));
    expect(await reports.keepOpen()).toBe(true);
    await reports.recordSettled(KEY);
    expect(done).toEqual([]);
    for (const row of state.notifications.list()) state.notifications.markSent(row.id, '250 ok');
    await reports.recordSettled(KEY);
    await reports.recordSettled(KEY);
    expect(done).toEqual([KEY]);
  });

  it('withdraws its copy, a message left sending included, when another process holds the day, and never records it done', async () => {
    const { state, reports, done, lines, statuses } = setUp(() => ({
      held: false,
      holder: 'there',
      holderLive: true,
      done: false,
    }));
    // One channel's message went out before; the other's was being sent when the process stopped.
    const [first, second] = state.notifications.list();
    state.notifications.markSending(first?.id ?? 0);
    state.notifications.markSent(second?.id ?? 0, '250 ok');
    expect(await reports.keepOpen()).toBe(true);
    expect(statuses()).toEqual(['sent']);
    // What is left here is all sent, but the day is not this process's to record.
    expect(state.notifications.settled(KEY)).toBe(true);
    await reports.recordSettled(KEY);
    expect(done).toEqual([]);
    expect(lines.filter((line) => line.includes('took the day over'))).toHaveLength(1);
  });

  it('holds its copy back, without withdrawing it, while its own heartbeats have lapsed, and says so once', async () => {
    const { reports, done, lines, statuses } = setUp(() => ({
      held: false,
      holder: 'here',
      done: false,
      holderLive: false,
    }));
    expect(await reports.keepOpen()).toBe(false);
    expect(await reports.keepOpen()).toBe(false);
    expect(statuses()).toEqual(['pending', 'pending']);
    await reports.recordSettled(KEY);
    expect(done).toEqual([]);
    expect(lines.filter((line) => line.includes('held back while this process is not among'))).toHaveLength(
      1,
    );
  });

  it('holds its copy back, without withdrawing it, when the holder is gone too while this process is not live', async () => {
    const { reports, statuses } = setUp(() => ({
      held: false,
      holder: 'there',
      done: false,
      holderLive: false,
    }));
    expect(await reports.keepOpen()).toBe(false);
    expect(statuses()).toEqual(['pending', 'pending']);
  });

  it("records a past day done once its messages settle, though today's key has moved on", async () => {
    const { state, reports, done } = setUp(() => ({ held: true, token: 't' }));
    expect(await reports.keepOpen()).toBe(true);
    for (const row of state.notifications.list()) state.notifications.markSent(row.id, '250 ok');
    await reports.recordSettled('office_report:2026-12-01');
    expect(done).toEqual([KEY]);
  });
});
