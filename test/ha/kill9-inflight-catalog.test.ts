/**
 * A leader frozen (SIGSTOP) with a catalog write really in flight: two catalog-leader processes (the real catalog
 * job with the daemon's elector, fenced PostgreSQL state and write gate) sync the demo ERP's catalog to the sandbox
 * through an HTTP relay that can hold a request. At each point a product is renamed in the ERP, the relay holds the
 * leader's product batch (its arrival at the relay is what proves the write was in flight), and the leader is
 * frozen. The standby takes over, re-sends the unconfirmed batch from the frozen leader's intents, and then sends
 * the ERP's next name; every other point the ERP changes during the takeover already, and the standby first
 * re-sends the frozen batch exactly (the reconciling re-push), then its newer one. Only then the relay lets the frozen leader's batch reach the API, late: it must be absorbed
 * (the API replays it under its deterministic Idempotency-Key) and the catalog stay current. Woken, the old leader
 * stands by and writes nothing.
 *
 * HA_INFLIGHT_POINTS sets the number of freezes (CI size in test/support/suites.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openPgStateStore } from '../../src/state/index.js';
import { erpSql } from '../flows/catalog/catalog-support.js';
import {
  sandboxCatalog,
  startSupplierHarness,
  type SupplierHarness,
} from '../flows/documents/supplier-harness.js';
import { CATALOG_LEADER_CHILD, ChildElector, type ChildEvent } from './support/child-electors.js';
import { HoldingRelay } from './support/holding-relay.js';
import { createTempDatabase, postgresProbe, type TempDatabase } from './support/postgres.js';

const POINTS = Number(process.env['HA_INFLIGHT_POINTS'] ?? '30');
const LEASE_MS = 3_000;
/** Generous on a busy machine; a wait that passes it fails saying what it waited for. */
const STEP_GUARD_MS = 30_000;

const probe = await postgresProbe();

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + STEP_GUARD_MS;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within the ${STEP_GUARD_MS} ms guard`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!probe.available)(
  `a leader frozen with a catalog batch in flight${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let harness: SupplierHarness;
    let state: TempDatabase;
    let relay: HoldingRelay;
    const children: ChildElector[] = [];

    beforeAll(async () => {
      harness = await startSupplierHarness();
      state = await createTempDatabase();
      openPgStateStore({ url: state.url, clock: systemClock }).close();
      relay = await HoldingRelay.start(harness.sandbox.baseUrl);
    });
    afterAll(async () => {
      await Promise.all(children.map((child) => child.end()));
      await relay?.close();
      await state?.drop();
      await harness?.close();
    });

    it(
      `keeps the catalog current across ${POINTS} freezes with a product batch held in flight`,
      async () => {
        const [first] = await erpSql(harness, 'SELECT PARTNAME AS sku FROM PARTS ORDER BY PARTNAME LIMIT 1');
        const sku = String(first?.['sku']);
        const nameInApi = async () => (await sandboxCatalog(harness.sandbox)).products[sku]?.name;
        const rename = (name: string) =>
          erpSql(harness, 'UPDATE PARTS SET PARTDES = :name WHERE PARTNAME = :sku', { name, sku });
        const start = (name: string) => {
          const child = new ChildElector(
            name,
            {
              url: state.url,
              leaseMs: LEASE_MS,
              renewIntervalMs: LEASE_MS / 3,
              pollIntervalMs: 500,
              baseUrl: relay.baseUrl,
              apiKey: harness.sandbox.keys.supplier,
              erpFile: harness.erp.file,
            },
            CATALOG_LEADER_CHILD,
          );
          children.push(child);
          return child;
        };
        const a = start('catalog-a');
        await a.next('elected', (event) => event.event === 'elected', STEP_GUARD_MS);
        await a.next('first sync', (event) => event.event === 'run' && event.outcome === 'ok', 60_000);
        const b = start('catalog-b');
        await b.next('started', (event) => event.event === 'started', STEP_GUARD_MS);
        let [leader, standby] = [a, b];
        let absorbed = 0;
        let changedDuring = 0;

        for (let point = 0; point < POINTS; point += 1) {
          const frozenName = `Frozen write ${point}`;
          const newerName = `Newer write ${point}`;
          const leaderFrom = leader.events.length;
          const standbyFrom = standby.events.length;
          const holding = relay.holdNext('POST', '/supplier/products/batch');
          await rename(frozenName);
          const held = await holding;
          // In flight: the leader's batch with the frozen name has reached the relay.
          expect(held.body.toString('utf8')).toContain(frozenName);
          expect(held.headers['idempotency-key']).toMatch(/^catalog-products:/);
          leader.signal('SIGSTOP');
          // Every other point the ERP changes again during the takeover: the next leader's first send already differs.
          const changedDuringTakeover = point % 2 === 1;
          if (changedDuringTakeover) await rename(newerName);

          await standby.next('elected', (event) => event.event === 'elected', STEP_GUARD_MS, standbyFrom);
          if (!changedDuringTakeover) {
            await until(`the standby re-sent "${frozenName}"`, async () =>
              (await nameInApi()) === frozenName ? true : undefined,
            );
            await rename(newerName);
          }
          await until(`the new leader sent "${newerName}"`, async () =>
            (await nameInApi()) === newerName ? true : undefined,
          );

          // The frozen leader's batch reaches the API now, after the newer one: replayed, not applied.
          expect(await relay.release()).toBe(200);
          expect(await nameInApi()).toBe(newerName);
          leader.signal('SIGCONT');
          const woke = (event: ChildEvent) => event.event === 'lost' || event.event === 'refused';
          await leader.next('step-down', woke, STEP_GUARD_MS, leaderFrom);
          // The new leader's next runs find nothing to change: the API holds what its state says.
          const runs = standby.events.length;
          await standby.next(
            'a quiet run',
            (event) =>
              event.event === 'run' &&
              event.outcome === 'ok' &&
              (event.counts?.['products_changed'] ?? 0) === 0,
            STEP_GUARD_MS,
            runs,
          );
          expect(await nameInApi()).toBe(newerName);
          absorbed += 1;
          if (changedDuringTakeover) changedDuring += 1;
          [leader, standby] = [standby, leader];
        }
        process.stdout.write(
          `in-flight catalog freezes: ${POINTS} points, ${absorbed} late batches absorbed, ${changedDuring} with the ERP changed during the takeover\n`,
        );
        expect(absorbed).toBe(POINTS);
        expect(changedDuring).toBe(Math.floor(POINTS / 2));
      },
      POINTS * 30_000 + 90_000,
    );
  },
);
