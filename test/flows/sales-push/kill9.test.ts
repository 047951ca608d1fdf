/**
 * kill -9 at seeded random points: a child process runs the sales-push job on a real drop folder against the
 * sandbox this test hosts, on a real state file, and is killed with SIGKILL (by a timer here, or by itself before
 * or after a push or a batch mark), then restarted. Meanwhile the POS keeps dropping Z-report and item-sale files,
 * some revising earlier Z-reports. In the end the sandbox holds every Z-report and item sale exactly once in its
 * latest version, and every dropped file is in done/.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { mulberry32 } from '../documents/supplier-harness.js';
import { expectConverges, killRounds } from '../kill9/rounds.js';
import type { SalesChildSettings } from './child.js';
import { ITEM_HEADER, startSalesHarness, Z_HEADER, type SalesHarness } from './harness.js';

const KILL_POINTS = Number(process.env['SALES_PUSH_KILL_POINTS'] ?? 50);
const CHILD = join(import.meta.dirname, 'child.ts');
/** Two independent scenarios (own sandbox, drop folder and state file) run side by side to bound the wall time. */
const SCENARIOS = 2;
const BRANCHES: Record<string, string> = {
  TLV01: 'br_tlv',
  HRZ02: 'br_hrz',
  JLM03: 'br_jlm',
  HFA04: 'br_hfa',
};
const CODES = Object.keys(BRANCHES);

const harnesses: SalesHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

interface StoredZReport {
  branch_id: string;
  z_number: string;
  total_before_vat: string;
}
interface StoredItemSale {
  branch_id: string;
  z_number: string;
  line_number?: number;
  item_code: string;
  total: string;
}

/** What the POS dropped so far, as the API should end up holding it (the latest version per key). */
class PosDrops {
  readonly files: string[] = [];
  readonly zReports = new Map<string, string>();
  readonly itemSales = new Map<string, string>();
  #zNumbers = 0;

  constructor(
    private readonly harness: SalesHarness,
    private readonly random: () => number,
    /** Prefix of this scenario's Z numbers. */
    readonly prefix: string,
  ) {}

  async dropSome(): Promise<void> {
    const files = 1 + Math.floor(this.random() * 2);
    for (let n = 0; n < files; n += 1) {
      if (this.random() < 0.45) await this.#dropZReports();
      else await this.#dropItemSales();
    }
  }

  #name(kind: string): string {
    // Zero-padded so that the flow (which reads files in name order) sees them in the order they were dropped.
    const name = `${String(this.files.length).padStart(4, '0')}-${kind}.csv`;
    this.files.push(name);
    return name;
  }

  readonly #firstZRows = new Map<string, { total: string; row: string }>();

  #newZ(): { code: string; z: string } {
    this.#zNumbers += 1;
    const code = CODES[Math.floor(this.random() * CODES.length)] ?? 'TLV01';
    return { code, z: `${this.prefix}-${this.#zNumbers}` };
  }

  /**
   * New Z-reports, and sometimes a revision of one dropped before: a new total, or the Z's very first row again
   * (content going A -> B -> A must reach the API as A).
   */
  async #dropZReports(): Promise<void> {
    const rows: string[] = [];
    const count = 1 + Math.floor(this.random() * 3);
    for (let n = 0; n < count; n += 1) {
      const { code, z } = this.#newZ();
      rows.push(this.#zRow(code, z));
    }
    const earlier = [...this.zReports.keys()];
    const revised = earlier[Math.floor(this.random() * earlier.length)];
    if (revised !== undefined && this.random() < 0.5) {
      const [branchId, z] = revised.split('/') as [string, string];
      const code = CODES.find((c) => BRANCHES[c] === branchId) ?? 'TLV01';
      const first = this.#firstZRows.get(revised);
      if (first !== undefined && first.total !== this.zReports.get(revised) && this.random() < 0.5) {
        this.zReports.set(revised, first.total);
        rows.push(first.row);
      } else rows.push(this.#zRow(code, z));
    }
    await this.harness.drop(this.#name('z'), [Z_HEADER, ...rows]);
  }

  #zRow(code: string, z: string): string {
    const total = `${1000 + this.files.length}.${String(Math.floor(this.random() * 100)).padStart(2, '0')}`;
    const key = `${BRANCHES[code] ?? ''}/${z}`;
    const row = `${code},${z},2026-11-21T23:10:00+02:00,${total},,${1 + Math.floor(this.random() * 40)}`;
    this.zReports.set(key, total);
    if (!this.#firstZRows.has(key)) this.#firstZRows.set(key, { total, row });
    return row;
  }

  /** The lines of one new Z-report: with line numbers from the POS, or without (the flow numbers them). */
  async #dropItemSales(): Promise<void> {
    const { code, z } = this.#newZ();
    const numbered = this.random() < 0.5;
    const lines = 20 + Math.floor(this.random() * 400);
    const rows: string[] = [];
    for (let line = 1; line <= lines; line += 1) {
      const item = `I-${Math.floor(this.random() * 500)}`;
      const total = `${line}.50`;
      this.itemSales.set(`${BRANCHES[code] ?? ''}/${z}/${line}`, `${item} ${total}`);
      rows.push(
        `${code},${z},${numbered ? line : ''},2026-11-21T12:00:00+02:00,${item},Item ${item},1,${total},${total},Food`,
      );
    }
    await this.harness.drop(this.#name('items'), [ITEM_HEADER, ...rows]);
  }
}

/** Per key: how many records the sandbox holds, and the content of the last one. */
function byKey<T>(records: readonly T[], key: (record: T) => string, content: (record: T) => string) {
  const held = new Map<string, { count: number; content: string }>();
  for (const record of records) {
    const entry = held.get(key(record));
    held.set(key(record), { count: (entry?.count ?? 0) + 1, content: content(record) });
  }
  return held;
}

function expectExactly(
  held: Map<string, { count: number; content: string }>,
  expected: Map<string, string>,
  what: string,
): void {
  const problems: string[] = [];
  for (const [key, content] of expected) {
    const entry = held.get(key);
    if (entry === undefined) problems.push(`${what} ${key} missing`);
    else if (entry.count !== 1) problems.push(`${what} ${key} held ${entry.count} times`);
    else if (entry.content !== content)
      problems.push(`${what} ${key} is ${entry.content}, expected ${content}`);
  }
  for (const key of held.keys()) if (!expected.has(key)) problems.push(`${what} ${key} was never dropped`);
  expect(problems).toEqual([]);
}

async function scenario(
  seed: number,
  points: number,
): Promise<{ kills: number; before: number; clean: number }> {
  const harness = await startSalesHarness();
  harnesses.push(harness);
  const random = mulberry32(seed);
  const pos = new PosDrops(harness, random, `ZK${seed}`);
  const settings: SalesChildSettings = {
    baseUrl: harness.sandbox.baseUrl,
    apiKey: harness.sandbox.keys.buyer,
    // Not the harness's state file: the harness holds that one open, and the state file allows one process.
    stateFile: join(harness.dir, 'daemon.db'),
    dir: harness.dir,
  };
  const rounds = await killRounds({
    child: CHILD,
    envName: 'SALES_PUSH_CHILD',
    settings: { ...settings },
    random,
    points,
    maxStep: 10,
    maxDelayMs: 500,
    between: () => pos.dropSome(),
    // The POS also drops files while the flow runs.
    during: async () => {
      if (random() < 0.5) await pos.dropSome();
    },
    duringMaxMs: 600,
  });
  await expectConverges(CHILD, 'SALES_PUSH_CHILD', { ...settings });

  const readout = await harness.sandbox.control.state();
  const mine = (record: { z_number: string }) => record.z_number.startsWith(`${pos.prefix}-`);
  const zReports = Object.values(readout['zReports'] as Record<string, StoredZReport>).filter(mine);
  const itemSales = Object.values(readout['itemSales'] as Record<string, StoredItemSale>).filter(mine);
  expectExactly(
    byKey(
      zReports,
      (r) => `${r.branch_id}/${r.z_number}`,
      (r) => r.total_before_vat,
    ),
    pos.zReports,
    'Z-report',
  );
  expectExactly(
    byKey(
      itemSales,
      (s) => `${s.branch_id}/${s.z_number}/${s.line_number ?? ''}`,
      (s) => `${s.item_code} ${s.total}`,
    ),
    pos.itemSales,
    'item sale',
  );
  expect((await readdir(harness.dropDir)).filter((name) => name.endsWith('.csv'))).toEqual([]);
  expect((await readdir(join(harness.dropDir, 'done'))).sort()).toEqual([...pos.files].sort());
  expect(existsSync(join(harness.dropDir, 'failed'))).toBe(false);
  const state = openStateStore({ file: settings.stateFile, clock: systemClock });
  try {
    expect(state.deadLetters.countOpen('pos-sales')).toBe(0);
  } finally {
    state.close();
  }
  return { kills: rounds.killsInRuns, before: rounds.killsBeforeRun, clean: rounds.cleanExits };
}

describe('sales-push flow under kill -9', () => {
  it(`${KILL_POINTS} kills inside runs, then every Z-report and item sale once and every file done`, async () => {
    const perScenario = Math.ceil(KILL_POINTS / SCENARIOS);
    const results = await Promise.all(
      Array.from({ length: SCENARIOS }, (_, index) => scenario(20261122 + index, perScenario)),
    );
    const kills = results.reduce((sum, r) => sum + r.kills, 0);
    const before = results.reduce((sum, r) => sum + r.before, 0);
    const clean = results.reduce((sum, r) => sum + r.clean, 0);
    console.info(
      `sales-push kill -9: ${kills} kills inside runs, ${before} before the first write, ${clean} runs not killed`,
    );
    expect(kills).toBeGreaterThanOrEqual(KILL_POINTS);
    expect(before).toBe(0);
  }, 240_000);
});
