/**
 * kill -9 at seeded random points: a child process runs the catalog job against a sandbox this test hosts and the
 * demo ERP on a SQLite file, is killed with SIGKILL (by a timer here, or by itself at a chosen step) and
 * restarted, while the ERP's catalog keeps changing. In the end the sandbox holds exactly the ERP's catalog
 * (nothing lost), and the send log shows that a change was only ever sent twice in a row by a process that came
 * after a killed one that had sent it (the crash-window repeat of the same content that upserts make harmless),
 * never twice by one process or after a clean run.
 *
 * Every sixth round is the window of a product the API accepted but the state never recorded: the round adds new
 * parts and its child kills itself right after the API answered their batch; before the next round the ERP drops
 * them again, and in the end the API must show them deleted.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runChild } from '../documents/crash-process.js';
import {
  mulberry32,
  sandboxCatalog,
  startSupplierHarness,
  type SupplierHarness,
} from '../documents/supplier-harness.js';
import { readSendLog } from './send-log.js';
import { addParts, erpSql, expectCatalogMatches } from './catalog-support.js';

const KILL_POINTS = Number(process.env['CATALOG_KILL_POINTS'] ?? 50);
const CHILD = join(import.meta.dirname, 'child.ts');
/** Two independent scenarios (own sandbox, ERP and state file) run side by side to keep the wall time bounded. */
const SCENARIOS = 2;
const FINAL_GUARD_MS = 180_000;

const harnesses: SupplierHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

/** One ERP edit per call: renames, price changes, stock changes, deactivations, new parts. */
async function changeErp(harness: SupplierHarness, random: () => number, round: number): Promise<void> {
  const offset = Math.floor(random() * 1000);
  const size = 1 + Math.floor(random() * 600);
  const kind = Math.floor(random() * 5);
  const range = `SELECT PARTNAME FROM PARTS ORDER BY PARTNAME LIMIT ${size} OFFSET ${offset}`;
  if (kind === 0)
    await erpSql(harness, `UPDATE PARTS SET PARTDES = PARTDES || ' r${round}' WHERE PARTNAME IN (${range})`);
  if (kind === 1)
    await erpSql(
      harness,
      `UPDATE PRICELIST SET PRICE = printf('%.2f', CAST(PRICE AS REAL) + 1) WHERE PARTNAME IN (${range})`,
    );
  if (kind === 2)
    await erpSql(
      harness,
      `UPDATE WAREHOUSEBAL SET BALANCE = CASE BALANCE WHEN '0' THEN '7' ELSE '0' END WHERE PARTNAME IN (${range})`,
    );
  if (kind === 3)
    await erpSql(
      harness,
      `UPDATE PARTS SET INACTIVE = 'Y' WHERE PARTNAME IN (SELECT PARTNAME FROM PARTS WHERE INACTIVE = 'N' AND PARTNAME LIKE 'BULK%' ORDER BY PARTNAME LIMIT ${1 + Math.floor(random() * 20)} OFFSET ${Math.floor(random() * 300)})`,
    );
  if (kind === 4) await addParts(harness, 1 + Math.floor(random() * 40), `NEW${round}`);
}

/** Deactivates the live parts whose SKU matches `pattern`; returns their SKUs. */
async function dropParts(harness: SupplierHarness, pattern: string): Promise<string[]> {
  const rows = await erpSql(
    harness,
    `SELECT PARTNAME FROM PARTS WHERE INACTIVE = 'N' AND PARTNAME LIKE :pattern`,
    {
      pattern,
    },
  );
  await erpSql(harness, `UPDATE PARTS SET INACTIVE = 'Y' WHERE PARTNAME LIKE :pattern`, { pattern });
  return rows.map((row) => String(row['PARTNAME']));
}

async function scenario(seed: number, points: number): Promise<void> {
  const harness = await startSupplierHarness();
  harnesses.push(harness);
  const random = mulberry32(seed);
  await addParts(harness, 649); // 1,000 products: two batches
  const sendLog = join(harness.dir, 'sends.jsonl');
  const base = {
    baseUrl: harness.sandbox.baseUrl,
    apiKey: harness.sandbox.keys.supplier,
    stateFile: join(harness.dir, 'daemon.db'),
    erpFile: harness.erp.file,
    sendLog,
  };
  const killedPids = new Set<number>();
  const droppedAfterWindow: string[] = [];
  // With few kill points the loop may end before round 3: the first window round then comes at round 1.
  const windowPhase = points <= 8 ? 1 : 3;
  let windowPending: string | undefined;
  let windowRounds = 0;
  let kills = 0;
  // Restart until `points` children were actually killed (a child that finds nothing to do exits cleanly).
  for (let point = 0; kills < points && point < points * 3; point += 1) {
    await changeErp(harness, random, point);
    const window = point % 6 === windowPhase;
    if (windowPending !== undefined) {
      droppedAfterWindow.push(...(await dropParts(harness, `${windowPending}-%`)));
      windowPending = undefined;
    }
    if (window) {
      await addParts(harness, 1 + Math.floor(random() * 3), `LATE${point}`);
      windowPending = `LATE${point}`;
      windowRounds += 1;
    }
    const selfKill = point % 2 === 0;
    const settings = window
      ? { ...base, killAfterAnswerFor: `LATE${point}-00000` }
      : selfKill
        ? { ...base, killAtStep: 1 + Math.floor(random() * 6) }
        : base;
    const exit = await runChild(
      CHILD,
      'CATALOG_CHILD',
      settings,
      selfKill || window ? null : Math.floor(random() * 300),
    );
    expect(exit.timedOut, `round ${point} outlived the guard\n${exit.stdout}${exit.stderr}`).toBe(false);
    if (window) expect(exit.signal, exit.stdout + exit.stderr).toBe('SIGKILL');
    if (exit.signal === 'SIGKILL') {
      kills += 1;
      const pid = /started pid=(\d+)/.exec(exit.stdout)?.[1];
      if (pid !== undefined) killedPids.add(Number(pid));
    } else expect(exit.code, exit.stdout + exit.stderr).toBe(0);
  }
  // A window round that was the last one: the ERP drops its parts before the final run.
  if (windowPending !== undefined)
    droppedAfterWindow.push(...(await dropParts(harness, `${windowPending}-%`)));
  // The final run must converge. A SIGKILL it did not ask for (the machine's, not a kill point of ours) is one
  // more kill: its pid joins the killed ones, and the run starts again. Any other ending fails the test.
  // The final run sends everything the killed runs left unconfirmed: under a loaded machine it takes longer than
  // one round, so its guard is wider.
  const finalStarted = Date.now();
  let final = await runChild(CHILD, 'CATALOG_CHILD', base, null, FINAL_GUARD_MS);
  for (let retry = 0; retry < 2 && final.signal === 'SIGKILL' && !final.timedOut; retry += 1) {
    const pid = /started pid=(\d+)/.exec(final.stdout)?.[1];
    console.warn(
      `catalog kill -9 scenario ${seed}: the final run (pid ${pid ?? '?'}) was killed from outside`,
    );
    if (pid !== undefined) killedPids.add(Number(pid));
    final = await runChild(CHILD, 'CATALOG_CHILD', base, null, FINAL_GUARD_MS);
  }
  const ending = `code ${final.code}, signal ${final.signal}, timed out ${final.timedOut}\n`;
  expect(final.code, ending + final.stdout + final.stderr).toBe(0);
  expect(final.stdout).toContain('converged');
  expect(kills).toBeGreaterThanOrEqual(points);

  const catalog = await sandboxCatalog(harness.sandbox);
  expect(await expectCatalogMatches(harness, catalog.products, catalog.prices)).toEqual([]);
  const live = new Set(
    (await erpSql(harness, `SELECT PARTNAME FROM PARTS WHERE INACTIVE = 'N'`)).map((r) =>
      String(r['PARTNAME']),
    ),
  );
  const liveInApi = Object.values(catalog.products).filter((product) => product.deleted_at === null);
  expect(liveInApi.map((product) => product.sku).sort()).toEqual([...live].sort());
  console.info(
    `catalog kill -9 scenario ${seed}: ${kills} kills, ${windowRounds} window rounds, ` +
      `final run ${Date.now() - finalStarted} ms`,
  );
  // Each window round's parts were dropped again (none when the kill points ended before the first window).
  if (windowRounds > 0) expect(droppedAfterWindow.length).toBeGreaterThan(0);
  expect(droppedAfterWindow.filter((sku) => catalog.products[sku]?.deleted_at === null)).toEqual([]);

  // Per (op, key): the contents sent, in order, with the sending process.
  const sends = new Map<string, { pid: number; content: string }[]>();
  for (const entry of readSendLog(sendLog)) {
    const id = `${entry.op} ${entry.key}`;
    sends.set(id, [...(sends.get(id) ?? []), { pid: entry.pid, content: entry.content }]);
  }
  const violations: string[] = [];
  for (const [id, history] of sends) {
    history.forEach((send, index) => {
      const previous = history[index - 1];
      if (previous === undefined || previous.content !== send.content) return;
      // The same content twice in a row: only a restart after a killed process that sent it (before its hashes
      // were saved) may do that. Content sent again after other content is the ERP going back to an earlier state.
      if (!killedPids.has(previous.pid) || previous.pid === send.pid)
        violations.push(`${id} sent twice at ${index}`);
    });
  }
  expect(violations).toEqual([]);
}

describe('catalog flow under kill -9', () => {
  it(`${KILL_POINTS} kill points, then the sandbox holds exactly the ERP catalog`, async () => {
    const perScenario = Math.ceil(KILL_POINTS / SCENARIOS);
    await Promise.all(Array.from({ length: SCENARIOS }, (_, index) => scenario(7 + index, perScenario)));
  }, 480_000);
});
