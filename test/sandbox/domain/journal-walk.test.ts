/**
 * Walking approved journal lines over real HTTP while other lines leave the filter (exported), join it (new
 * approvals) and share timestamps: every line that stays approved is returned exactly once, a line is never
 * returned once it has left the filter, and updated_since stays strictly after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createManualClock,
  startSandbox,
  type AdvanceableClock,
  type RunningSandbox,
} from '../../../src/sandbox/index.js';

interface Line {
  id: string;
  status: string;
  updated_at: string;
}
interface PageBody {
  data: Line[];
  next_cursor: string | null;
}

let sandbox: RunningSandbox;
let clock: AdvanceableClock;
let keyCounter = 0;

beforeAll(async () => {
  clock = createManualClock(Date.UTC(2026, 10, 22, 9, 0, 0));
  sandbox = await startSandbox({ clock, rateLimitOverrides: { all: { per_minute: 1_000_000 } } });
});
afterAll(async () => {
  await sandbox.close();
});

async function page(query: string, cursor: string | null): Promise<PageBody> {
  const path = `/accounting/journal-lines?${query}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
  const response = await fetch(`${sandbox.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${sandbox.keys.buyer}` },
  });
  expect(response.status).toBe(200);
  return (await response.json()) as PageBody;
}

async function walk(query: string): Promise<Line[]> {
  const lines: Line[] = [];
  let cursor: string | null = null;
  do {
    const body = await page(query, cursor);
    lines.push(...body.data);
    cursor = body.next_cursor;
  } while (cursor !== null);
  return lines;
}

async function exportLines(ids: readonly string[]): Promise<void> {
  keyCounter += 1;
  const response = await fetch(`${sandbox.baseUrl}/accounting/exports`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${sandbox.keys.buyer}`,
      'content-type': 'application/json',
      'idempotency-key': `walk-${keyCounter}`,
    },
    body: JSON.stringify({ journal_line_ids: ids }),
  });
  expect(response.status).toBe(201);
}

const approve = async (count: number): Promise<string[]> =>
  ((await sandbox.control.action('approve_journal_lines', { count })) as { journal_line_ids: string[] })
    .journal_line_ids;

describe('journal lines walk by status while lines change status', () => {
  it('returns each line that stays approved exactly once, and none after it was exported', async () => {
    const exportedBefore = (await walk('status=exported&limit=200')).map((line) => line.id);
    // The clock stands still: each batch of lines shares one updated_at, so pages end inside ties.
    const tiedAtStart = await approve(1500);
    const startedAt = new Date(clock.now()).toISOString();
    clock.advance(1);
    const later = await approve(900);
    const exported = new Set<string>();
    const seen = new Map<string, number>();
    const ahead = [...tiedAtStart, ...later];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const body = await page('status=approved_for_export&limit=200', cursor);
      for (const line of body.data) {
        expect(line.status).toBe('approved_for_export');
        expect(exported.has(line.id)).toBe(false);
        seen.set(line.id, (seen.get(line.id) ?? 0) + 1);
      }
      cursor = body.next_cursor;
      pages += 1;
      // Between pages: export some lines already read and some not reached yet, in the same millisecond as
      // the page (their new updated_at ties with each other), and now and then approve new lines.
      const notYetRead = ahead.filter((id) => !seen.has(id) && !exported.has(id)).slice(-60);
      const alreadyRead = [...seen.keys()].filter((id) => !exported.has(id)).slice(0, 90);
      const batch = [...notYetRead, ...alreadyRead];
      if (batch.length > 0) {
        await exportLines(batch);
        for (const id of batch) exported.add(id);
      }
      if (pages % 3 === 0) {
        if (pages % 2 === 0) clock.advance(1);
        ahead.push(...(await approve(30)));
      }
    } while (cursor !== null);

    expect([...seen.values()].every((count) => count === 1)).toBe(true);
    const stillApproved = await walk('status=approved_for_export&limit=200');
    expect(stillApproved.length).toBeGreaterThan(0);
    for (const line of stillApproved) expect(seen.has(line.id)).toBe(true);
    for (const id of exported) expect(stillApproved.some((line) => line.id === id)).toBe(false);

    const exportedWalk = await walk('status=exported&limit=200');
    expect(new Set(exportedWalk.map((line) => line.id))).toEqual(new Set([...exportedBefore, ...exported]));
    expect(exportedWalk).toHaveLength(exportedBefore.length + exported.size);

    const since = await walk(`status=approved_for_export&limit=200&updated_since=${startedAt}`);
    expect(since.length).toBeGreaterThan(0);
    for (const line of since) expect(Date.parse(line.updated_at)).toBeGreaterThan(Date.parse(startedAt));
    const sinceIds = new Set(since.map((line) => line.id));
    for (const line of stillApproved)
      expect(sinceIds.has(line.id)).toBe(Date.parse(line.updated_at) > Date.parse(startedAt));
  });

  it('keeps the unfiltered walk and the per-status walks consistent after exports', async () => {
    const all = await walk('limit=200');
    expect(new Set(all.map((line) => line.id)).size).toBe(all.length);
    const byStatus = new Map<string, number>();
    for (const line of all) byStatus.set(line.status, (byStatus.get(line.status) ?? 0) + 1);
    for (const status of ['not_ready', 'approved_for_export', 'exported']) {
      const lines = await walk(`status=${status}&limit=200`);
      expect(lines.length).toBe(byStatus.get(status) ?? 0);
      expect(lines.every((line) => line.status === status)).toBe(true);
    }
  });
});
