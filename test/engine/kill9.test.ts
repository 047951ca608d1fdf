import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, type TempDir } from '../state/support.js';
import { compiledEntry } from '../support/compiled-entry.js';
import { MemorySource, serveSource } from './support/source.js';

/**
 * Kill -9 at seeded random points while a child pulls a large stream (ties, a tie group bigger than a page, rows
 * appended and rows committed late between runs) into a real state file; restart until it converges; then every
 * sequence number must be staged exactly once.
 */
const SEED = Number(process.env.SUPPLY_SYNC_KILL_SEED ?? '20261122');
/** Kills to reach (ENGINE_KILL_POINTS; its CI size in test/support/suites.ts). */
const KILLS = Number(process.env['ENGINE_KILL_POINTS'] ?? '24');
const MAX_ROUNDS = KILLS * 5;
const MIDWAY_CONVERGENCE_ROUND = Math.ceil(KILLS / 2);
const OVERLAP_MS = 120_000;
const PAGE_SIZE = 200;
const INITIAL = 20_000;
const BASE = Date.parse('2026-03-01T06:00:00.000Z');
const CHILD = fileURLToPath(new URL('./support/pull-child.ts', import.meta.url));

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface RunningChild {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

function startChild(file: string, url: string): RunningChild {
  const child = spawn(
    process.execPath,
    [compiledEntry(CHILD), file, url, String(OVERLAP_MS), String(PAGE_SIZE)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('ready')) markReady();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve) => {
      child.on('close', (code, signal) => {
        markReady();
        resolve({ code, signal, output });
      });
    },
  );
  return { child, ready, exited };
}

const sleep = (ms: number) => new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms));

describe('incremental pull under kill -9', () => {
  let tmp: TempDir;
  let source: MemorySource;
  let server: Awaited<ReturnType<typeof serveSource>>;
  const running = new Set<ChildProcess>();

  beforeAll(async () => {
    tmp = tempDir('supply-sync-kill-');
    source = new MemorySource();
    for (let i = 0; i < INITIAL; i += 1) {
      // Groups of 40 equal timestamps, and one group of 600 (three pages) at the same instant.
      const group = i >= 8000 && i < 8600 ? 200 : Math.floor(i / 40);
      const seq = i + 1;
      source.put({
        id: `r${String(seq).padStart(7, '0')}`,
        seq,
        updated_at: new Date(BASE + group * 1000).toISOString(),
      });
    }
    server = await serveSource(source);
  });

  afterAll(async () => {
    for (const child of running)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await server.close();
    tmp.remove();
  });

  it(
    'stages every record exactly once after many hard kills, late commits included',
    { timeout: 180_000 },
    async () => {
      const rng = mulberry32(SEED);
      const file = tmp.file('state/supply-sync.db');
      let nextSeq = INITIAL + 1;
      const late: Array<{ seq: number; behindWatermark: boolean }> = [];
      let kills = 0;
      let cleanExits = 0;
      let rounds = 0;

      const readWatermark = (): number | null => {
        const db = new Database(file, { readonly: true, fileMustExist: true });
        try {
          const row = db.prepare("SELECT watermark_ms AS w FROM cursors WHERE stream = 'items'").get() as
            { w: number | null } | undefined;
          return row?.w ?? null;
        } finally {
          db.close();
        }
      };

      const grow = () => {
        const max = source.maxMs();
        // New rows: 200 in ties of 25 within the next second (the stream grows slower than the overlap).
        for (let i = 0; i < 200; i += 1) {
          const seq = nextSeq++;
          const at = max + 125 * (1 + Math.floor(i / 25));
          source.put({ id: `r${String(seq).padStart(7, '0')}`, seq, updated_at: new Date(at).toISOString() });
        }
        // Late commits: rows that appear now with timestamps up to 60 s in the past, some at the watermark itself.
        const watermark = readWatermark();
        for (let i = 0; i < 4; i += 1) {
          const seq = nextSeq++;
          const at = i === 0 && watermark !== null ? watermark : max - Math.floor(rng() * 60_000);
          source.put({
            id: `late${String(seq).padStart(7, '0')}`,
            seq,
            updated_at: new Date(at).toISOString(),
          });
          late.push({ seq, behindWatermark: watermark !== null && at <= watermark });
        }
      };

      while (kills < KILLS && rounds < MAX_ROUNDS) {
        rounds += 1;
        if (rounds > 1) grow();
        const run = startChild(file, server.url);
        running.add(run.child);
        await run.ready;
        if (rounds === MIDWAY_CONVERGENCE_ROUND) {
          // One run is let finish, so later rounds commit rows behind a real watermark however slow the machine.
          const result = await Promise.race([run.exited, sleep(60_000).then(() => null)]);
          expect(result?.code, result?.output ?? 'no exit within 60 s').toBe(0);
          running.delete(run.child);
          cleanExits += 1;
          continue;
        }
        const delay = Math.floor(rng() * 700);
        const finished = await Promise.race([run.exited.then(() => true), sleep(delay)]);
        if (finished) {
          const result = await run.exited;
          expect(result.code, result.output).toBe(0);
          cleanExits += 1;
        } else {
          run.child.kill('SIGKILL');
          const result = await run.exited;
          if (result.signal === 'SIGKILL') kills += 1;
          else expect(result.code, result.output).toBe(0);
        }
        running.delete(run.child);
      }

      const last = startChild(file, server.url);
      running.add(last.child);
      const final = await Promise.race([last.exited, sleep(60_000).then(() => null)]);
      expect(final, 'the last run did not finish within 60 s').not.toBeNull();
      expect(final?.code, final?.output).toBe(0);
      expect(final?.output).toContain('converged');

      expect(kills).toBeGreaterThanOrEqual(KILLS);
      const db = new Database(file, { readonly: true });
      const rows = db
        .prepare('SELECT seq, COUNT(*) AS n FROM staged GROUP BY seq ORDER BY seq')
        .all() as Array<{
        seq: number;
        n: number;
      }>;
      db.close();
      const total = nextSeq - 1;
      const twice = rows.filter((r) => r.n > 1).map((r) => r.seq);
      const seen = new Set(rows.map((r) => r.seq));
      const missing: number[] = [];
      for (let seq = 1; seq <= total; seq += 1) if (!seen.has(seq)) missing.push(seq);
      expect(twice, 'staged more than once').toEqual([]);
      expect(missing, 'never staged').toEqual([]);
      expect(rows).toHaveLength(total);
      expect(total).toBeGreaterThan(INITIAL);
      // Late rows at or behind the watermark a strictly-after cursor would have skipped: the overlap caught them.
      const behind = late.filter((l) => l.behindWatermark);
      expect(behind.length).toBeGreaterThan(0);
      for (const l of behind) expect(seen.has(l.seq)).toBe(true);
      console.info(
        `kill test: seed ${SEED}, ${rounds} rounds, ${kills} kills, ${cleanExits} clean exits, ${total} records, ` +
          `${behind.length} late rows behind the watermark`,
      );
    },
  );
});
