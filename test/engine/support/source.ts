import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A record of the test stream: `seq` numbers every version so checks can find gaps and repeats. */
export interface SourceRecord {
  id: string;
  seq: number;
  updated_at: string;
}

export interface SourcePage {
  data: SourceRecord[];
  next_cursor: string | null;
  has_more: boolean;
}

interface Position {
  since: number | null;
  ms: number;
  id: string;
}

/**
 * A list endpoint with the contract's semantics: `updated_since` strictly after, pages ordered by
 * (updated_at, id), opaque keyset cursors (stable when rows are inserted between pages).
 */
export class MemorySource {
  private readonly records = new Map<string, { record: SourceRecord; ms: number }>();
  private sorted: Array<{ record: SourceRecord; ms: number }> | null = null;

  put(record: SourceRecord): void {
    this.records.set(record.id, { record, ms: Date.parse(record.updated_at) });
    this.sorted = null;
  }

  private ordered(): Array<{ record: SourceRecord; ms: number }> {
    this.sorted ??= [...this.records.values()].sort(
      (a, b) => a.ms - b.ms || (a.record.id < b.record.id ? -1 : a.record.id > b.record.id ? 1 : 0),
    );
    return this.sorted;
  }

  size(): number {
    return this.records.size;
  }

  maxMs(): number {
    let max = 0;
    for (const { ms } of this.records.values()) max = Math.max(max, ms);
    return max;
  }

  list(query: { cursor: string | null; updatedSince: string | null; limit: number }): SourcePage {
    const position: Position | null = query.cursor
      ? (JSON.parse(Buffer.from(query.cursor, 'base64url').toString('utf8')) as Position)
      : null;
    const since = position
      ? position.since
      : query.updatedSince === null
        ? null
        : Date.parse(query.updatedSince);
    const rows: Array<{ record: SourceRecord; ms: number }> = [];
    for (const r of this.ordered()) {
      if (since !== null && r.ms <= since) continue;
      if (position && (r.ms < position.ms || (r.ms === position.ms && r.record.id <= position.id))) continue;
      rows.push(r);
      if (rows.length > query.limit) break;
    }
    const page = rows.slice(0, query.limit);
    const hasMore = rows.length > query.limit;
    const last = page.at(-1);
    const next: Position | null = hasMore && last ? { since, ms: last.ms, id: last.record.id } : null;
    return {
      data: page.map((r) => r.record),
      next_cursor: next ? Buffer.from(JSON.stringify(next)).toString('base64url') : null,
      has_more: hasMore,
    };
  }
}

/** Serves a MemorySource at GET /items?cursor&updated_since&limit on 127.0.0.1. */
export async function serveSource(
  source: MemorySource,
): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/items') {
      res.writeHead(404).end();
      return;
    }
    const page = source.list({
      cursor: url.searchParams.get('cursor'),
      updatedSince: url.searchParams.get('updated_since'),
      limit: Number(url.searchParams.get('limit') ?? '50'),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(page));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Timestamps with many ties: `groupSize` records share each millisecond value, groups 1 s apart. */
export function tiedTimestamp(baseMs: number, index: number, groupSize: number): string {
  return new Date(baseMs + Math.floor(index / groupSize) * 1000).toISOString();
}
