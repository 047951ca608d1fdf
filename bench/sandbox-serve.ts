/**
 * Sandbox serve rate: 200-item pages per second from GET /supplier/orders?limit=200 (authentication, rate
 * limiting, paging, serialization), against a bare node:http server sending the same page's bytes. The load
 * generator runs in a child process so the server keeps a core to itself.
 *
 * Also, at journal-export scale (a sandbox in its own process, 1,000,000 approved lines; 20,000 with --quick): the
 * seeding time, one client's full walk of GET /accounting/journal-lines?status=approved_for_export at 200 per
 * page, a second walk that marks every 5,000 lines read exported (POST /accounting/exports) as it goes, and the
 * sandbox's RSS. Reported as details, against the targets of the sandbox's share of the journal-export flow.
 */
import { readFileSync } from 'node:fs';
import { Pool } from 'undici';
import { startSandbox } from '../src/sandbox/index.js';
import { startSandboxProcess, type SandboxProcess } from './lib/sandbox-process.js';
import { seedJournalLines } from './lib/seed.js';
import { cannedJson } from './lib/bare-servers.js';
import { generateLoadInChild } from './lib/child-load.js';
import type { LoadConfig } from './lib/load-generator.js';
import { check, measured } from './lib/result.js';
import { percentile, ratio } from './lib/stats.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const PAGE_PATH = '/v2/supplier/orders?limit=200';

export const sandboxServe: Benchmark = {
  name: 'sandbox-serve',
  title: 'Sandbox serve rate (200-item pages)',
  target: 'reported (no target): shows the sandbox is not the bottleneck of the other benchmarks',
  run,
};

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  // --quick (the smoke test) still needs a few answered requests on a busy 2-core machine: 1 s once gave none.
  const durationMs = options.quick ? 3_000 : 10_000;
  const load = (origin: string, headers: Record<string, string>): LoadConfig => ({
    origin,
    connections: 8,
    pipelining: 1,
    durationMs,
    warmupMs: options.quick ? 500 : 1_000,
    maxRequests: 1_000_000,
    request: { kind: 'static', method: 'GET', path: PAGE_PATH, headers },
  });

  const journal = await journalAtScale(options);
  const sandbox = await startSandbox({ rateLimitOverrides: { all: { per_minute: 1_000_000_000 } } });
  try {
    await sandbox.control.action('buyer_send_order', { count: 200 });
    const headers = { authorization: `Bearer ${sandbox.keys.supplier}` };
    const sample = await fetch(`${sandbox.origin}${PAGE_PATH}`, { headers });
    const pageBody = await sample.text();
    const items = (JSON.parse(pageBody) as { data: unknown[] }).data.length;
    if (sample.status !== 200 || items !== 200) {
      throw new Error(`expected a 200-item page, got status ${sample.status} with ${items} items`);
    }

    options.log(`  baseline: bare node:http with the same ${pageBody.length}-byte page`);
    const bare = await cannedJson(pageBody);
    const baseline = await generateLoadInChild(load(bare.origin, headers)).finally(() => bare.close());

    options.log('  sandbox');
    const served = await generateLoadInChild(load(sandbox.origin, headers));
    const nonOk = served.completed - served.ok;
    return measured({
      name: sandboxServe.name,
      title: sandboxServe.title,
      startedAt,
      figure: { label: 'sandbox', value: served.okPerSecond, unit: 'pages/s' },
      baseline: { label: 'bare node:http, same bytes', value: baseline.okPerSecond, unit: 'pages/s' },
      ratio: ratio(served.okPerSecond, baseline.okPerSecond),
      checks: [
        check('every response 200', nonOk, 'non-200', nonOk === 0),
        check(
          'journal walks: no line repeated or missed',
          journal.walkErrors,
          'errors',
          journal.walkErrors === 0,
        ),
      ],
      details: {
        'page size': `${pageBody.length} bytes, 200 orders`,
        'sandbox items/s': served.okPerSecond * 200,
        'sandbox p50 / p99 latency (ms)': `${served.latencyMs.p50.toFixed(1)} / ${served.latencyMs.p99.toFixed(1)}`,
        'baseline p50 / p99 latency (ms)': `${baseline.latencyMs.p50.toFixed(1)} / ${baseline.latencyMs.p99.toFixed(1)}`,
        load: '8 keep-alive connections from a child process, closed loop',
        'sandbox statuses': JSON.stringify(served.statuses),
        ...journal.details,
      },
      notes: [
        'Journal figures: targets on an idle machine are seeding < 60 s, a walk >= 150 pages/s and an export ' +
          'of 5,000 ids < 50 ms; compare them with the load average reported next to them.',
      ],
    });
  } finally {
    await sandbox.close();
  }
}

const JOURNAL_PATH = '/v2/accounting/journal-lines?status=approved_for_export&limit=200';
const EXPORT_SIZE = 5_000;

interface JournalFigures {
  walkErrors: number;
  details: Record<string, number | string>;
}

async function journalAtScale(options: BenchOptions): Promise<JournalFigures> {
  const lines = options.quick ? 20_000 : 1_000_000;
  const sandbox = await startSandboxProcess();
  const pool = new Pool(sandbox.origin, { connections: 1 });
  try {
    options.log(`  journal: seeding ${lines} approved lines`);
    const seedStarted = performance.now();
    await seedJournalLines(sandbox, lines, 20_000);
    const seedMs = performance.now() - seedStarted;
    const rssAfterSeed = rssMiB(sandbox.pid);
    const loadAfterSeed = loadAverage();

    options.log('  journal: walk');
    const read = await walkJournal(pool, sandbox, null);
    options.log('  journal: walk marking lines exported');
    const exportMs: number[] = [];
    const marked = await walkJournal(pool, sandbox, exportMs);
    const after = await walkJournal(pool, sandbox, null);
    const sorted = [...exportMs].sort((a, b) => a - b);
    return {
      walkErrors: read.repeated + marked.repeated + (marked.rows === read.rows ? 0 : 1) + after.rows,
      details: {
        'journal lines seeded': lines,
        'journal seed time (s)': Number((seedMs / 1000).toFixed(1)),
        'journal sandbox RSS after seeding (MiB)': rssAfterSeed,
        'journal first page of a walk (ms)': Number(read.firstPageMs.toFixed(0)),
        'journal walk (pages/s, one client)': Number(read.pagesPerSecond.toFixed(0)),
        'journal walk marking exported (lines/s)': Number((marked.rows / (marked.ms / 1000)).toFixed(0)),
        'journal export of 5,000 ids p50 / p90 / max (ms)': [50, 90, 100]
          .map((q) => percentile(sorted, q).toFixed(1))
          .join(' / '),
        'journal sandbox RSS at the end (MiB)': rssMiB(sandbox.pid),
        'load average after seeding / at the end': `${loadAfterSeed} / ${loadAverage()}`,
      },
    };
  } finally {
    await pool.close();
    await sandbox.close();
  }
}

interface Walked {
  rows: number;
  repeated: number;
  ms: number;
  firstPageMs: number;
  pagesPerSecond: number;
}

/** Reads every approved line once, 200 per page; with `exportMs`, marks each 5,000 read exported on the way. */
async function walkJournal(pool: Pool, sandbox: SandboxProcess, exportMs: number[] | null): Promise<Walked> {
  const headers = { authorization: `Bearer ${sandbox.keys.buyer}` };
  const seen = new Set<string>();
  let repeated = 0;
  let pages = 0;
  let firstPageMs = 0;
  let pending: string[] = [];
  let cursor: string | null = null;
  const started = performance.now();
  do {
    const path: string =
      cursor === null ? JOURNAL_PATH : `${JOURNAL_PATH}&cursor=${encodeURIComponent(cursor)}`;
    const response = await pool.request({ method: 'GET', path, headers });
    const body = (await response.body.json()) as { data: { id: string }[]; next_cursor: string | null };
    if (response.statusCode !== 200) throw new Error(`journal page: status ${response.statusCode}`);
    if (pages === 0) firstPageMs = performance.now() - started;
    pages += 1;
    for (const line of body.data) {
      if (seen.has(line.id)) repeated += 1;
      seen.add(line.id);
      pending.push(line.id);
    }
    cursor = body.next_cursor;
    if (exportMs !== null && (pending.length >= EXPORT_SIZE || (cursor === null && pending.length > 0))) {
      exportMs.push(await exportLines(pool, sandbox, pending.slice(0, EXPORT_SIZE)));
      pending = pending.slice(EXPORT_SIZE);
    }
  } while (cursor !== null);
  const ms = performance.now() - started;
  return { rows: seen.size, repeated, ms, firstPageMs, pagesPerSecond: pages / (ms / 1000) };
}

let exportKey = 0;
async function exportLines(pool: Pool, sandbox: SandboxProcess, ids: string[]): Promise<number> {
  exportKey += 1;
  const started = performance.now();
  const response = await pool.request({
    method: 'POST',
    path: '/v2/accounting/exports',
    headers: {
      authorization: `Bearer ${sandbox.keys.buyer}`,
      'content-type': 'application/json',
      'idempotency-key': `bench-export-${process.pid}-${exportKey}`,
    },
    body: JSON.stringify({ journal_line_ids: ids }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 201)
    throw new Error(`export: status ${response.statusCode} ${text.slice(0, 200)}`);
  return performance.now() - started;
}

function rssMiB(pid: number): number {
  const match = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Math.round(Number(match[1]) / 1024) : -1;
}

const loadAverage = (): string => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
