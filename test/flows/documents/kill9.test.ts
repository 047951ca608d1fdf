/**
 * kill -9 at seeded random points: a child process runs the documents job against the sandbox this test hosts and
 * the demo ERP on a SQLite file, and is killed with SIGKILL (by a timer here, or by itself at a chosen step), then
 * restarted. Meanwhile the ERP issues documents and the buyer reacts. In the end every ERP document exists once in
 * the API with its PDF, and every buyer reaction is in the ERP.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { simulateErpActivity } from '../../../connectors/sql/demo-erp/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { runChild } from './crash-process.js';
import {
  mulberry32,
  sandboxDocuments,
  startSupplierHarness,
  type SupplierHarness,
} from './supplier-harness.js';

const KILL_POINTS = Number(process.env['DOCUMENTS_KILL_POINTS'] ?? 50);
const CHILD = join(import.meta.dirname, 'child.ts');
const ACTIONS = ['buyer_receive_document', 'buyer_dispute_document', 'buyer_approve_document'] as const;

/** Two independent scenarios (own sandbox, ERP and state file) run side by side to keep the wall time bounded. */
const SCENARIOS = 2;

const harnesses: SupplierHarness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((harness) => harness.close()));
});

async function scenario(seed: number, points: number): Promise<void> {
  const harness = await startSupplierHarness();
  harnesses.push(harness);
  const random = mulberry32(seed);
  const base = {
    baseUrl: harness.sandbox.baseUrl,
    apiKey: harness.sandbox.keys.supplier,
    stateFile: join(harness.dir, 'daemon.db'),
    erpFile: harness.erp.file,
  };
  const issued: string[] = [];
  let kills = 0;
  // Restart until `points` children were actually killed (a child that finds nothing to do exits cleanly).
  for (let point = 0; kills < points && point < points * 3; point += 1) {
    if (random() < 0.6) {
      const { documents } = await simulateErpActivity(harness.erp, {
        clock: systemClock,
        random,
        documents: 1 + Math.floor(random() * 2),
        confirmations: 0,
        catalogChanges: 0,
      });
      issued.push(...documents);
    }
    if (random() < 0.4) await react(harness, issued, random);
    const selfKill = point % 2 === 0;
    const exit = await runChild(
      CHILD,
      'DOCUMENTS_CHILD',
      selfKill ? { ...base, killAtStep: 1 + Math.floor(random() * 6) } : base,
      selfKill ? null : Math.floor(random() * 300),
    );
    expect(exit.timedOut, exit.stdout + exit.stderr).toBe(false);
    if (exit.signal === 'SIGKILL') kills += 1;
    else expect(exit.code, exit.stdout + exit.stderr).toBe(0);
  }
  const final = await runChild(CHILD, 'DOCUMENTS_CHILD', base, null);
  expect(final.code, final.stdout + final.stderr).toBe(0);
  expect(final.stdout).toContain('converged');
  expect(kills).toBeGreaterThanOrEqual(points);

  const { documents, tallies } = await sandboxDocuments(harness.sandbox);
  const ours = documents.filter((doc) => issued.includes(doc.number));
  // Nothing lost, nothing twice.
  expect(ours.map((doc) => doc.number).sort()).toEqual([...issued].sort());
  for (const doc of ours) {
    expect(tallies[doc.id], doc.number).toEqual({ creations: 1, duplicateAttempts: 0 });
    expect(doc.files, doc.number).toHaveLength(1);
  }
  const rows = (
    await harness.erp.driver.query('SELECT IVNUM, API_DOCUMENT_ID, BUYERSTATUS FROM DOCUMENTS', {})
  ).rows;
  const erp = new Map(rows.map((row) => [String(row['IVNUM']), row]));
  for (const doc of ours) {
    expect(erp.get(doc.number)?.['API_DOCUMENT_ID'], doc.number).toBe(doc.id);
    expect(erp.get(doc.number)?.['BUYERSTATUS'] ?? 'pending', doc.number).toBe(doc.buyer_status);
  }
}

describe('documents flow under kill -9', () => {
  it(`${KILL_POINTS} kill points, then every document once with its file and every reaction in the ERP`, async () => {
    const perScenario = Math.ceil(KILL_POINTS / SCENARIOS);
    await Promise.all(
      Array.from({ length: SCENARIOS }, (_, index) => scenario(20261122 + index, perScenario)),
    );
  }, 240_000);
});

/** The buyer moves one sent document a step further (receive, then dispute or approve). */
async function react(
  harness: SupplierHarness,
  issued: readonly string[],
  random: () => number,
): Promise<void> {
  const { documents } = await sandboxDocuments(harness.sandbox);
  const candidates = documents.filter(
    (doc) =>
      issued.includes(doc.number) &&
      doc.buyer_status !== 'disputed' &&
      doc.buyer_status !== 'approved_for_export',
  );
  const doc = candidates[Math.floor(random() * candidates.length)];
  if (doc === undefined) return;
  const action = doc.buyer_status === 'pending' ? ACTIONS[0] : ACTIONS[1 + Math.floor(random() * 2)];
  await harness.sandbox.control.action(action ?? ACTIONS[0], {
    document_id: doc.id,
    ...(action === ACTIONS[0] ? { with_differences: random() < 0.5 } : {}),
  });
}
