/**
 * An outbox send on a PostgreSQL state runs the fence first: once the term is lost no entry is sent, the drain ends
 * with LeadershipLostError, and the entry stays pending for the next leader (same idempotency key).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drainOutbox, enqueueWrite, RunBudget } from '../../src/engine/index.js';
import { LeadershipLostError } from '../../src/ha/index.js';
import { openPgStateStore, type PgStateStore } from '../../src/state/index.js';
import { FakeClock } from '../state/support.js';
import { createTempDatabase, postgresProbe, type TempDatabase } from './support/postgres.js';

const probe = await postgresProbe();

describe.skipIf(!probe.available)(
  `outbox sends behind the fence${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let database: TempDatabase;
    let state: PgStateStore;

    beforeAll(async () => {
      database = await createTempDatabase();
      state = openPgStateStore({ url: database.url, clock: new FakeClock() });
    });
    afterAll(async () => {
      state?.close();
      await database?.drop();
    });

    it('sends nothing once the term is lost, and the entry waits for the next leader', async () => {
      let leading = true;
      let fenceChecks = 0;
      state.setFence({
        check: () => {
          fenceChecks += 1;
          if (!leading) throw new LeadershipLostError('lease_taken', 'leadership lost: term 1 ended', 1);
        },
      });
      const entry = enqueueWrite(state, {
        stream: 'docs',
        idempotencyKey: 'doc-1',
        method: 'POST',
        path: '/documents',
        body: Buffer.from('{}'),
      });
      const sent: string[] = [];
      const send = async (request: { idempotencyKey: string }) => {
        sent.push(request.idempotencyKey);
        return { ok: true };
      };
      const clock = new FakeClock();
      const budget = () => new RunBudget(clock, 60_000, new AbortController().signal);

      leading = false;
      const checksBefore = fenceChecks;
      await expect(drainOutbox({ state, send, budget: budget() })).rejects.toThrow(LeadershipLostError);
      expect(fenceChecks).toBeGreaterThan(checksBefore);
      expect(sent).toEqual([]);
      expect(state.outbox.depth().pending).toBe(1);

      leading = true;
      expect(await drainOutbox({ state, send, budget: budget() })).toEqual({ sent: 1, retried: 0, dead: 0 });
      expect(sent).toEqual([entry.idempotencyKey]);
      state.setFence(null);
    });
  },
);
