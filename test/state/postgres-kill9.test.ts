/**
 * kill -9 of a process writing pages to a PostgreSQL state, at seeded random moments: every page is whole or
 * absent (its ledger rows and its cursor commit together), and every commit the process saw return survives.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPgStateStore } from '../../src/state/postgres/store.js';
import { compiledEntry } from '../support/compiled-entry.js';
import { PgScratchDatabases, probePostgres } from './backends.js';
import { FakeClock } from './support.js';

const SEED = Number(process.env['SUPPLY_SYNC_KILL_SEED'] ?? '20261125');
const KILLS = 6;
const PER_PAGE = 40;
const CHILD = fileURLToPath(new URL('./support/pg-page-child.ts', import.meta.url));

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

/** Runs the child until it has reported `pages` more commits plus a random number of further ms, then kill -9. */
function runAndKill(url: string, pages: number, extraMs: number): Promise<{ lastSeen: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [compiledEntry(CHILD), url, String(PER_PAGE)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let lastSeen = 0;
    let seen = 0;
    let buffered = '';
    let stderr = '';
    let armed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const match = /^committed (\d+)$/.exec(line);
        if (match) {
          lastSeen = Number(match[1]);
          seen += 1;
        }
      }
      if (!armed && seen >= pages) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), extraMs);
      }
    });
    const bound = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      clearTimeout(bound);
      if (signal !== 'SIGKILL' || !armed) reject(new Error(`child ended without being killed (${String(signal)}): ${stderr}`));
      else resolve({ lastSeen, stderr });
    });
  });
}

const skipReason = await probePostgres();
const title = 'kill -9 while writing pages to a PostgreSQL state';

describe.skipIf(skipReason !== null)(skipReason === null ? title : `${title} (skipped: ${skipReason})`, () => {
  const scratch = new PgScratchDatabases();
  let url: string;
  beforeAll(async () => {
    url = await scratch.create('ss_kill9');
  });
  afterAll(() => scratch.dropAll());

  it(`keeps every page whole and every acknowledged commit, over ${KILLS} kills (seed ${SEED})`, { timeout: 240_000 }, async () => {
    const random = mulberry32(SEED);
    const clock = new FakeClock();
    for (let kill = 0; kill < KILLS; kill += 1) {
      const { lastSeen } = await runAndKill(url, 3 + Math.floor(random() * 10), Math.floor(random() * 40));
      const state = openPgStateStore({ url, clock });
      try {
        const watermark = state.cursors.get('pages')?.watermarkMs ?? 0;
        expect(watermark).toBeGreaterThanOrEqual(lastSeen);
        expect(state.ledger.count('pages')).toBe(watermark * PER_PAGE);
        const partial = state.db
          .prepare(
            `SELECT record_key FROM ledger WHERE flow = 'pages' AND record_key LIKE ? LIMIT 1`,
          )
          .get(`p${watermark + 1}-%`);
        expect(partial).toBeUndefined();
      } finally {
        state.close();
      }
    }
  });
});
