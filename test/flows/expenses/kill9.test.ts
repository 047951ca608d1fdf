/**
 * kill -9 at seeded random points: a child process runs the expenses job on a real back-office database (SQLite,
 * through the `sql` connector) against the sandbox this test hosts, on a real state file, and is killed with
 * SIGKILL (by a timer here, or by itself before or after a receipt upload, an expense creation or a write-back),
 * then restarted. Between runs the back office records new expenses, some refused by the buyer's blocking rules
 * (an allocation number above 5,000 ILS, a required receipt, a category without an account mapping) and fixed a
 * few rounds later. In the end the sandbox holds every expense exactly once with its receipt, and the back office
 * holds each expense's API id, written once.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { mulberry32 } from '../documents/supplier-harness.js';
import { expectConverges, killRounds } from '../kill9/rounds.js';
import type { ExpensesChildSettings } from './child.js';
import {
  sandboxExpenses,
  startExpensesHarness,
  writeBack,
  type BackOfficeExpense,
  type ExpensesHarness,
} from './harness.js';

const KILL_POINTS = Number(process.env['EXPENSES_KILL_POINTS'] ?? 50);
const CHILD = join(import.meta.dirname, 'child.ts');
/** Two independent scenarios (own sandbox, back office and state file) run side by side to bound the wall time. */
const SCENARIOS = 2;

const harnesses: ExpensesHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

type Blocked = 'allocation' | 'receipt' | 'mapping';

/** What the back office recorded, and the fixes it owes for expenses a blocking rule refused. */
class BackOffice {
  readonly withReceipt = new Set<string>();
  readonly all: string[] = [];
  readonly #toFix = new Map<string, Blocked>();
  #next = 0;

  constructor(
    private readonly harness: ExpensesHarness,
    private readonly random: () => number,
  ) {}

  async recordSome(): Promise<void> {
    const count = 1 + Math.floor(this.random() * 3);
    for (let n = 0; n < count; n += 1) await this.#record();
  }

  /** Fixes about half of the refused expenses (all with `everything`). */
  async fixSome(everything = false): Promise<void> {
    for (const [id, blocked] of [...this.#toFix]) {
      if (!everything && this.random() < 0.5) continue;
      if (blocked === 'allocation')
        await this.harness.driver.query("UPDATE bo_expenses SET allocation_number = 'AL-77' WHERE id = :id", {
          id,
        });
      if (blocked === 'receipt') {
        const path = await this.harness.receipt(`${id}.pdf`);
        await this.harness.driver.query('UPDATE bo_expenses SET receipt = :path WHERE id = :id', {
          id,
          path,
        });
        this.withReceipt.add(id);
      }
      if (blocked === 'mapping')
        await this.harness.driver.query(
          "UPDATE bo_expense_lines SET category = 'SOFT' WHERE expense_id = :id",
          { id },
        );
      this.#toFix.delete(id);
    }
  }

  async #record(): Promise<void> {
    this.#next += 1;
    const id = `X-${String(this.#next).padStart(4, '0')}`;
    const roll = this.random();
    const blocked: Blocked | null =
      roll < 0.1 ? 'allocation' : roll < 0.2 ? 'receipt' : roll < 0.28 ? 'mapping' : null;
    const needsReceipt = blocked === 'allocation' || (blocked === null && this.random() < 0.6);
    const expense: BackOfficeExpense = {
      id,
      vendor: ['ELEC', 'BRIK', 'EMEK'][Math.floor(this.random() * 3)] ?? 'ELEC',
      docType:
        blocked === 'mapping' || !needsReceipt
          ? blocked === 'receipt'
            ? 'tax_invoice'
            : 'none'
          : 'tax_invoice',
      branch: ['TLV01', 'HRZ02', 'JLM03'][Math.floor(this.random() * 3)] ?? 'TLV01',
      receipt: needsReceipt
        ? await this.harness.receipt(`${id}.pdf`, 1024 + Math.floor(this.random() * 4096))
        : null,
      lines: [
        {
          category: blocked === 'mapping' ? 'MISC' : 'UTIL',
          net: blocked === 'allocation' ? '5200.00' : `${10 + this.#next}.50`,
          vat: '1.80',
        },
        ...(this.random() < 0.5 ? [{ category: 'CLEAN', net: '4.25' }] : []),
      ],
    };
    await this.harness.insert(expense);
    this.all.push(id);
    if (needsReceipt) this.withReceipt.add(id);
    if (blocked !== null) this.#toFix.set(id, blocked);
  }
}

/** Where each kill landed: in the window of the last call the child named (an upload, a creation, a write-back). */
function landedIn(outputs: readonly string[]): Record<string, number> {
  const landed: Record<string, number> = { upload: 0, create: 0, mark: 0, other: 0 };
  for (const output of outputs) {
    const calls = [...output.matchAll(/^call (\w+)$/gm)];
    const last = calls.at(-1)?.[1] ?? 'other';
    landed[last] = (landed[last] ?? 0) + 1;
  }
  return landed;
}

async function scenario(seed: number, points: number) {
  const harness = await startExpensesHarness();
  harnesses.push(harness);
  const random = mulberry32(seed);
  const office = new BackOffice(harness, random);
  const settings: ExpensesChildSettings = {
    baseUrl: harness.sandbox.baseUrl,
    apiKey: harness.sandbox.keys.buyer,
    // Not the harness's state file: the harness holds that one open, and the state file allows one process.
    stateFile: join(harness.dir, 'daemon.db'),
    dir: harness.dir,
  };
  const rounds = await killRounds({
    child: CHILD,
    envName: 'EXPENSES_CHILD',
    settings: { ...settings },
    random,
    points,
    maxStep: 10,
    maxDelayMs: 400,
    between: async (round) => {
      await office.recordSome();
      if (round % 3 === 2) await office.fixSome();
    },
  });
  await office.fixSome(true);
  await expectConverges(CHILD, 'EXPENSES_CHILD', { ...settings });

  const stored = await sandboxExpenses(harness.sandbox, 'X-');
  const problems: string[] = [];
  const byRef = new Map<string, typeof stored>();
  for (const expense of stored)
    byRef.set(expense.external_ref ?? '', [...(byRef.get(expense.external_ref ?? '') ?? []), expense]);
  const back = await writeBack(harness.driver);
  for (const id of office.all) {
    const held = byRef.get(id) ?? [];
    if (held.length !== 1) problems.push(`${id} held ${held.length} times`);
    const [expense] = held;
    const row = back.get(id);
    if (row?.apiId !== expense?.id)
      problems.push(`${id} written back as ${row?.apiId ?? 'nothing'}, held as ${expense?.id ?? 'nothing'}`);
    if (row?.marks !== 1) problems.push(`${id} written back ${row?.marks ?? 0} times`);
    const files = office.withReceipt.has(id) ? 1 : 0;
    if (expense !== undefined && expense.files.length !== files)
      problems.push(`${id} has ${expense.files.length} files, expected ${files}`);
  }
  if (stored.length !== office.all.length)
    problems.push(`${stored.length} expenses held for ${office.all.length} recorded`);
  expect(problems).toEqual([]);
  const state = openStateStore({ file: settings.stateFile, clock: systemClock });
  try {
    expect(state.deadLetters.countOpen('expenses')).toBe(0);
  } finally {
    state.close();
  }
  return {
    kills: rounds.killsInRuns,
    before: rounds.killsBeforeRun,
    clean: rounds.cleanExits,
    expenses: office.all.length,
    landed: landedIn(rounds.killedOutputs),
  };
}

describe('expenses flow under kill -9', () => {
  it(`${KILL_POINTS} kills inside runs, then every expense once with its receipt and its id written back once`, async () => {
    const perScenario = Math.ceil(KILL_POINTS / SCENARIOS);
    const results = await Promise.all(
      Array.from({ length: SCENARIOS }, (_, index) => scenario(20261126 + index, perScenario)),
    );
    const sum = (pick: (r: (typeof results)[number]) => number) =>
      results.reduce((total, r) => total + pick(r), 0);
    console.info(
      `expenses kill -9: ${sum((r) => r.kills)} kills inside runs, ${sum((r) => r.before)} before the first write, ` +
        `${sum((r) => r.clean)} runs not killed, ${sum((r) => r.expenses)} expenses; kills after the start of ` +
        `an upload ${sum((r) => r.landed['upload'] ?? 0)}, a creation ${sum((r) => r.landed['create'] ?? 0)}, ` +
        `a write-back ${sum((r) => r.landed['mark'] ?? 0)}, elsewhere ${sum((r) => r.landed['other'] ?? 0)}`,
    );
    // The windows that could duplicate an expense or a write-back were each cut at least once.
    expect(sum((r) => r.landed['create'] ?? 0)).toBeGreaterThan(0);
    expect(sum((r) => r.landed['mark'] ?? 0)).toBeGreaterThan(0);
    expect(sum((r) => r.kills)).toBeGreaterThanOrEqual(KILL_POINTS);
  }, 300_000);
});
