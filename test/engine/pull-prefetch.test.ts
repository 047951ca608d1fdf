import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RunBudget, pullIncremental } from '../../src/engine/index.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';

interface Item {
  id: string;
  updated_at: string;
  page: number;
}

const PAGES = 5;
const PER_PAGE = 3;

let tmp: TempDir;
let state: StateStore;
let server: Server;
let origin: string;
let agent: Agent;
/** What happened, in order: the server receiving a page's request, the pull staging a page's first item. */
let events: string[];

function pageBody(page: number): string {
  const data: Item[] = Array.from({ length: PER_PAGE }, (_, i) => ({
    id: `r${page}-${i}`,
    updated_at: new Date(Date.UTC(2026, 2, 1, 6, page, i)).toISOString(),
    page,
  }));
  const hasMore = page < PAGES;
  return JSON.stringify({ data, next_cursor: hasMore ? `p${page + 1}` : null, has_more: hasMore });
}

beforeEach(async () => {
  tmp = tempDir();
  state = openStateStore({ file: tmp.file('s.db'), clock: new FakeClock() });
  events = [];
  server = createServer((req, res) => {
    const cursor = new URL(req.url ?? '/', 'http://local').searchParams.get('cursor') ?? 'p1';
    const page = Number(cursor.slice(1));
    events.push(`request ${page}`);
    res.writeHead(200, { 'content-type': 'application/json' }).end(pageBody(page));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // One keep-alive connection, reused for every page: the case where undici delays the write of a request.
  agent = new Agent({ connections: 1 });
});

afterEach(async () => {
  await agent.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  state.close();
  tmp.remove();
});

describe('pull prefetch', () => {
  it('sends the request for the next page before the current page commits', async () => {
    const result = await pullIncremental<Item>({
      state,
      stream: 'items',
      fetchPage: async ({ cursor }) => {
        const query = cursor === null ? '' : `?cursor=${cursor}`;
        const response = await request(`${origin}/items${query}`, { dispatcher: agent });
        const body = (await response.body.json()) as {
          data: Item[];
          next_cursor: string | null;
          has_more: boolean;
        };
        return { items: body.data, nextCursor: body.next_cursor, hasMore: body.has_more };
      },
      identify: (item) => ({ id: item.id, updatedAt: item.updated_at }),
      stageRecord: (item) => {
        if (item.id.endsWith('-0')) events.push(`stage ${item.page}`);
      },
      overlapMs: 0,
      budget: new RunBudget(new FakeClock(), 60_000, new AbortController().signal),
    });
    expect(result.outcome).toBe('ok');
    expect(result.counts.delivered).toBe(PAGES * PER_PAGE);
    for (let page = 1; page < PAGES; page++) {
      expect(events.indexOf(`request ${page + 1}`), `request ${page + 1} before stage ${page}`).toBeLessThan(
        events.indexOf(`stage ${page}`),
      );
    }
  });
});
