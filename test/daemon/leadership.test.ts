/**
 * Two daemons on one PostgreSQL state, in this process against a real sandbox: one leads, the other stands by and
 * is ready; status, readiness and metrics say which is which; the standby's own state store refuses writes (fenced)
 * while its unfenced session still writes; when the leader stops, the standby takes over.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import {
  createTempDatabase,
  PG_URL,
  postgresProbe,
  withClient,
  type TempDatabase,
} from '../ha/support/postgres.js';
import { eventually, openHealthWorld, sample, type HealthWorld } from './health-support.js';

const probe = await postgresProbe();

interface StatusBody {
  role: string;
  reasons: Array<{ check: string; detail?: string }>;
  instance: string | null;
  leader: { instance: string; epoch: number } | null;
}

async function status(daemon: Daemon): Promise<StatusBody> {
  const response = await fetch(`${daemon.opsUrl}/status`, { headers: { accept: 'application/json' } });
  return (await response.json()) as StatusBody;
}

/** The status page's line on leadership, as the browser would show it. */
async function pageLeadership(daemon: Daemon): Promise<string | undefined> {
  const response = await fetch(`${daemon.opsUrl}/status`, { headers: { accept: 'text/html' } });
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  return /<p id="leadership">([^<]*)<\/p>/.exec(await response.text())?.[1];
}

describe.skipIf(!probe.available)(
  `leader election in the daemon${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
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

    it('elects one leader, keeps a ready standby, and fails over when the leader stops', async () => {
      const config = (instance: string) => ({
        state: { url: database.url },
        ha: { instance, lease: '6s', poll_interval: '200ms' },
      });
      const a = await world.start(config('sync-a'));
      // A run of the leader under way: an instance that starts meanwhile must not close it as interrupted.
      const running = a.env.state.runs.start('orders', 'cli');
      const b = await world.start(config('sync-b'));
      expect(b.env.state.runs.get(running)?.endedAt).toBeNull();

      const first = await status(a);
      expect(first).toMatchObject({ role: 'leader', instance: 'sync-a', leader: { instance: 'sync-a' } });
      const standby = await eventually(async () => {
        const seen = await status(b);
        return seen.leader?.instance === 'sync-a' ? seen : undefined;
      });
      expect(standby).toMatchObject({ role: 'standby', instance: 'sync-b' });
      const term = `term ${first.leader?.epoch ?? '?'}`;
      expect(await pageLeadership(a)).toMatch(
        new RegExp(`^This instance \\(sync-a\\) leads since .+ \\(${term}\\) and runs the jobs\\.$`),
      );
      expect(await pageLeadership(b)).toMatch(
        new RegExp(
          `^This instance \\(sync-b\\) stands by; sync-a leads since .+ \\(${term}\\) and runs the jobs\\.$`,
        ),
      );

      const ready = await world.readyz(b);
      expect(ready.status, JSON.stringify(ready.body)).toBe(200);
      expect(sample(await world.metrics(a), 'supply_sync_leader')).toBe(1);
      expect(sample(await world.metrics(b), 'supply_sync_leader')).toBe(0);

      // The standby's jobs store is fenced: no write of it commits while it does not lead.
      expect(() => b.env.state.kv.set('test', 'standby-write', 1)).toThrow(/not the leader/);
      expect(a.env.state.kv.get('test', 'standby-write')).toBeUndefined();
      a.env.state.kv.set('test', 'leader-write', 1);
      expect(b.env.state.kv.get('test', 'leader-write')).toBe(1);

      // Nor does a write of its API client leave: only the leader's reaches the API (reads are the standby's too).
      const product = (sku: string) => [{ sku, name: sku, unit: 'kg' }];
      const standbyApi = b.env.apis.get('supplier');
      await expect(standbyApi?.catalog.upsertProducts(product('STANDBY-1'))).rejects.toMatchObject({
        name: 'LeadershipLostError',
        message: expect.stringMatching(/not the leader/),
      });
      expect((await standbyApi?.account.me())?.rate_limit.per_minute).toBeGreaterThan(0);
      await a.env.apis.get('supplier')?.catalog.upsertProducts(product('LEADER-1'));
      const products = ((await world.sandbox.control.state())['products'] ?? {}) as Record<string, unknown>;
      expect(Object.keys(products)).toContain('LEADER-1');
      expect(Object.keys(products)).not.toContain('STANDBY-1');

      await a.stop(5_000);
      const taken = await eventually(async () => {
        const seen = await status(b);
        return seen.role === 'leader' ? seen : undefined;
      }, 10_000);
      expect(taken.leader).toMatchObject({ instance: 'sync-b' });
      expect(taken.leader?.epoch).toBeGreaterThan(first.leader?.epoch ?? 0);
      expect(await pageLeadership(b)).toMatch(
        /^This instance \(sync-b\) leads since .+ and runs the jobs\.$/,
      );
      // A run the old leader left without an end was cut off: the new leader closes it as interrupted.
      expect(b.env.state.runs.get(running)).toMatchObject({ outcome: 'failed' });
      b.env.state.kv.set('test', 'new-leader-write', 2);
      expect(b.env.state.kv.get('test', 'new-leader-write')).toBe(2);
    });

    it('leads alone without an ha block; with PostgreSQL refusing it no one leads and readiness names state.url', async () => {
      // The state database stops taking connections and its sessions are ended: for the daemon, PostgreSQL is gone.
      // (A relay in this process cannot stand in for the network: the state port blocks this thread while it waits.)
      const own = await createTempDatabase(); // the pair of the test above still leads in the other one
      const name = new URL(own.url).pathname.slice(1);
      const setConnections = (allow: boolean) =>
        withClient(PG_URL, async (client) => {
          await client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${String(allow)}`);
          if (!allow) {
            await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [
              name,
            ]);
          }
        });
      const alone = await world.start({ state: { url: own.url } });
      const leading = await eventually(async () => {
        const seen = await status(alone);
        return seen.role === 'leader' ? seen : undefined;
      }, 15_000);
      expect(leading.instance).toMatch(/:\d+$/); // host:pid by default
      expect((await world.readyz(alone)).status).toBe(200);
      try {
        await setConnections(false);
        const down = await eventually(async () => {
          const ready = await world.readyz(alone);
          return ready.status === 503 ? ready : undefined;
        }, 15_000);
        const stateReason = down.body.reasons.find((reason) => reason.check === 'state');
        expect(stateReason?.detail).toContain('state.url');
        const standing = await eventually(async () => {
          const seen = await status(alone);
          return seen.role === 'standby' ? seen : undefined;
        }, 15_000);
        expect(standing.leader).toBeNull();
        expect(await pageLeadership(alone)).toMatch(
          /^This instance \(.+:\d+\) stands by; it cannot tell which instance leads: .*state\.url/,
        );
        expect(sample(await world.metrics(alone), 'supply_sync_leader')).toBe(0);
      } finally {
        await setConnections(true);
      }
      await eventually(async () => ((await status(alone)).role === 'leader' ? true : undefined), 20_000);
      expect((await world.readyz(alone)).status).toBe(200);
      await alone.stop(5_000);
      await own.drop();
    });
  },
);
