/**
 * Terms bind work: what began in term N of an instance is fenced to term N, also after the same instance wins
 * term N + 1. One daemon on a PostgreSQL state against a real sandbox; its term is ended in the database (the
 * lease expired under it), it is elected again, and work still bound to the first term is refused, at the state
 * and at the API, while the new term's work writes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { runInTerm, type Term } from '../../src/ha/index.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { eventually, openHealthWorld, type HealthWorld } from './health-support.js';

const probe = await postgresProbe();

async function leaderTerm(daemon: Daemon): Promise<Term | undefined> {
  const response = await fetch(`${daemon.opsUrl}/status`, { headers: { accept: 'application/json' } });
  const body = (await response.json()) as {
    role: string;
    leader: { instance: string; epoch: number } | null;
  };
  return body.role === 'leader' && body.leader !== null
    ? { epoch: body.leader.epoch, holder: body.leader.instance }
    : undefined;
}

describe.skipIf(!probe.available)(
  `terms bind work${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let world: HealthWorld;
    let database: TempDatabase;

    beforeAll(async () => {
      database = await createTempDatabase();
      world = await openHealthWorld();
    });
    afterAll(async () => {
      await world?.close();
      await database?.drop();
    });

    it('refuses work of an earlier term of the same instance, at the state and at the API', async () => {
      const daemon = await world.start({
        state: { url: database.url },
        ha: { instance: 'sync-a', lease: '3s', poll_interval: '100ms' },
      });
      const first = await eventually(() => leaderTerm(daemon), 10_000);
      const state = daemon.env.state;
      const api = daemon.env.apis.get('supplier');
      const product = (sku: string) => [{ sku, name: sku, unit: 'kg' }];
      // While its term holds, bound work writes.
      runInTerm(first, () => state.kv.set('test', 'first-term', 1));
      await runInTerm(first, () => api?.catalog.upsertProducts(product('TERM-1')));

      // The lease runs out in the database: the instance loses the term and wins the next one.
      await withClient(database.url, (client) =>
        client.query('UPDATE supply_sync_leader SET expires_at = now() WHERE epoch = $1', [first.epoch]),
      );
      const second = await eventually(async () => {
        const term = await leaderTerm(daemon);
        return term !== undefined && term.epoch > first.epoch ? term : undefined;
      }, 10_000);
      expect(second.holder).toBe('sync-a');

      expect(() => runInTerm(first, () => state.kv.set('test', 'late', 1))).toThrow(
        new RegExp(`work of term ${first.epoch} may not write in term ${second.epoch}`),
      );
      await expect(
        runInTerm(first, () => api?.catalog.upsertProducts(product('TERM-LATE'))),
      ).rejects.toMatchObject({ name: 'LeadershipLostError' });
      runInTerm(second, () => state.kv.set('test', 'second-term', 2));
      await runInTerm(second, () => api?.catalog.upsertProducts(product('TERM-2')));

      expect(state.kv.get('test', 'late')).toBeUndefined();
      expect(state.kv.get('test', 'second-term')).toBe(2);
      const products = Object.keys((await world.sandbox.control.state())['products'] ?? {});
      expect(products).toEqual(expect.arrayContaining(['TERM-1', 'TERM-2']));
      expect(products).not.toContain('TERM-LATE');
      // The refused work of term N did not end term N + 1.
      expect(await leaderTerm(daemon)).toEqual(second);
    });
  },
);
