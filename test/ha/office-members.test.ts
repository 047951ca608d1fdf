/**
 * The office's live instances and its one-for-all duty (the morning report) in the office's own PostgreSQL
 * database, as several office processes would: real Membership sessions on a throw-away database.
 *
 * Members: each sees the others and the companies each says it cannot run, kept current with its heartbeats; a
 * change of either is told (onChange), the same reading again is not.
 *
 * Duties: of instances claiming
 * one day at once, exactly one holds it; a claim holds while its instance is alive, even against an instance that
 * does not see it; a dead claimant's duty that is not done is taken over with the same token; a done duty is never
 * claimed again; an instance that is not a live member claims nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { haConfigSchema, haSettings, Membership, type MembershipOptions } from '../../src/ha/index.js';
import {
  createTempDatabase,
  postgresProbe,
  waitFor,
  withClient,
  type TempDatabase,
} from './support/postgres.js';

const probe = await postgresProbe();

const LEASE_MS = 2_000;
const silent = pino({ level: 'silent' });

describe.skipIf(!probe.available)(
  `office members and duties on PostgreSQL${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
  () => {
    let database: TempDatabase;
    const started: Membership[] = [];

    beforeAll(async () => {
      database = await createTempDatabase();
    });

    afterAll(async () => {
      await Promise.all(started.map((member) => member.stop()));
      await database?.drop();
    });

    /**
     * `frozen`: it beats once at its start, with a lease long enough that its row stays live until the test makes it
     * expire, as a frozen process's would. `cannotRun` and `changes`: what it publishes, and the changes it is told.
     */
    function member(
      instance: string,
      frozen = false,
      more: {
        cannotRun?: () => readonly string[];
        changes?: string[][];
        log?: MembershipOptions['log'];
        onReading?: () => void;
      } = {},
    ): Membership {
      const parsed = haSettings(haConfigSchema.parse({ instance, lease: LEASE_MS, poll_interval: 100 }));
      const settings = frozen ? { ...parsed, leaseMs: 600_000, pollIntervalMs: 600_000 } : parsed;
      const membership = new Membership({
        url: database.url,
        settings,
        log: more.log ?? silent,
        onChange: (members) => void more.changes?.push([...members]),
        ...(more.cannotRun === undefined ? {} : { cannotRun: more.cannotRun }),
        ...(more.onReading === undefined ? {} : { onReading: more.onReading }),
      });
      started.push(membership);
      return membership;
    }

    async function joined(instance: string, frozen?: boolean): Promise<Membership> {
      const membership = member(instance, frozen);
      await membership.start();
      expect(membership.lastError()).toBeNull();
      return membership;
    }

    // First: the other tests' instances stay live in the same database until the end.
    it('publishes the companies each instance cannot run, and tells a change of them as a change of the members', async () => {
      let eastCannot: readonly string[] = ['north'];
      const westChanges: string[][] = [];
      const east = member('east', false, { cannotRun: () => eastCannot });
      const west = member('west', false, { changes: westChanges });
      await east.start();
      await west.start();
      await waitFor(
        'west to see east and what it cannot run',
        () => west.cannotRun().get('east')?.[0] === 'north',
        5_000,
      );
      expect(west.members()).toEqual(['east', 'west']);
      expect([...west.cannotRun()]).toEqual([['east', ['north']]]);
      const changesBefore = westChanges.length;

      // east's north is fixed (a reload started it): its next heartbeat says so, and west is told.
      eastCannot = [];
      await waitFor('west to see east able to run every company', () => west.cannotRun().size === 0, 5_000);
      expect(westChanges.length).toBe(changesBefore + 1);
      expect(westChanges.at(-1)).toEqual(['east', 'west']);
    });

    it('gives a day to exactly one of the instances claiming it at once, and keeps it with its claimant', async () => {
      const [a, b, c] = await Promise.all([joined('a'), joined('b'), joined('c')]);
      const claims = await Promise.all([a, b, c].map((m) => m.duties.claim('office_report:2026-11-30')));
      const holders = claims.flatMap((claim, index) =>
        claim.held ? [['a', 'b', 'c'][index] as string] : [],
      );
      expect(holders).toHaveLength(1);
      const holder = [a, b, c][['a', 'b', 'c'].indexOf(holders[0] as string)] as Membership;
      const token = claims.flatMap((claim) => (claim.held ? [claim.token] : []))[0];
      // The claimant claiming again (a pass after a restart with the same name) holds it with the same token.
      expect(await holder.duties.claim('office_report:2026-11-30')).toEqual({ held: true, token });
      for (const other of [a, b, c].filter((m) => m !== holder)) {
        expect(await other.duties.claim('office_report:2026-11-30')).toEqual({
          held: false,
          holder: holders[0],
          done: false,
          holderLive: true,
        });
        expect(await other.duties.done('office_report:2026-11-30')).toBe(false);
      }
      // Another day is a claim of its own.
      expect((await a.duties.claim('office_report:2026-12-01')).held).toBe(true);
    });

    it("takes a gone claimant's unfinished duty over with its token, and never claims a done one", async () => {
      const [d, e] = await Promise.all([joined('d'), joined('e')]);
      const claim = await d.duties.claim('office_report:2026-11-29');
      expect(claim.held).toBe(true);
      expect((await e.duties.claim('office_report:2026-11-29')).held).toBe(false);
      await d.stop();
      // d left: its report, not recorded done, goes with the same token (the same Message-IDs) from e.
      expect(await e.duties.claim('office_report:2026-11-29')).toEqual(claim);
      expect(await e.duties.done('office_report:2026-11-29')).toBe(true);

      const f = await joined('f');
      expect((await f.duties.claim('office_report:2026-11-28')).held).toBe(true);
      expect(await f.duties.done('office_report:2026-11-28')).toBe(true);
      await f.stop();
      // Done: no one claims it, not the instance that held it, not one that sees it gone.
      expect(await e.duties.claim('office_report:2026-11-28')).toEqual({
        held: false,
        holder: 'f',
        done: true,
        holderLive: false,
      });
      const rows = await withClient(database.url, (client) =>
        client.query<{ duty: string; instance: string; done: boolean }>(
          `SELECT duty, instance, done_at IS NOT NULL AS done FROM supply_sync_office_duties
           WHERE duty IN ('office_report:2026-11-28', 'office_report:2026-11-29') ORDER BY duty`,
        ),
      );
      expect(rows.rows).toEqual([
        { duty: 'office_report:2026-11-28', instance: 'f', done: true },
        { duty: 'office_report:2026-11-29', instance: 'e', done: true },
      ]);
    });

    it('lets no instance claim while it is not a live member, and keeps a frozen claimant its claim until its row expires', async () => {
      const g = await joined('g', true);
      const outsider = member('outsider');
      // Never joined (its database session works, its heartbeat never ran): it claims nothing.
      expect(await outsider.duties.claim('office_report:2026-11-27')).toEqual({
        held: false,
        holder: null,
        done: false,
        holderLive: false,
      });
      const claim = await g.duties.claim('office_report:2026-11-27');
      expect(claim.held).toBe(true);
      // g's row made to expire as a frozen process's would (no heartbeat for a lease): h takes the day over.
      const h = await joined('h');
      expect((await h.duties.claim('office_report:2026-11-27')).held).toBe(false);
      await withClient(database.url, (client) =>
        client.query(
          `UPDATE supply_sync_members SET expires_at = now() - interval '1 second' WHERE instance = 'g'`,
        ),
      );
      expect(await h.duties.claim('office_report:2026-11-27')).toEqual(claim);
      // g, no longer live and no longer holding it, is told who does, and cannot record it done.
      expect(await g.duties.claim('office_report:2026-11-27')).toEqual({
        held: false,
        holder: 'h',
        done: false,
        holderLive: true,
      });
      expect(await g.duties.done('office_report:2026-11-27')).toBe(false);
    });

    it('tells a claimant whose own row lapsed that it still holds the day, not that another does', async () => {
      const k = await joined('k', true);
      expect((await k.duties.claim('office_report:2026-11-26')).held).toBe(true);
      await withClient(database.url, (client) =>
        client.query(
          `UPDATE supply_sync_members SET expires_at = now() - interval '1 second' WHERE instance = 'k'`,
        ),
      );
      expect(await k.duties.claim('office_report:2026-11-26')).toEqual({
        held: false,
        holder: 'k',
        done: false,
        holderLive: false,
      });
    });

    it('warns while another live process has this one’s instance name, and says when it is alone again', async () => {
      const lines: string[] = [];
      const log = {
        warn: (_: object, message: string) => void lines.push(`warn ${message}`),
        info: (_: object, message: string) => void lines.push(`info ${message}`),
      };
      const watcher = member('twin', false, { log });
      await watcher.start();
      const other = await joined('twin');
      await waitFor('the shared name seen', () => lines.length > 0, 10_000);
      expect(lines).toEqual([
        expect.stringMatching(/^warn another live office process has this instance name/),
      ]);
      await other.stop();
      await waitFor('the name alone again', () => lines.length > 1, 10_000);
      expect(lines[1]).toMatch(/^info this instance name is this process’s alone again/);
    });

    it('does not take the row of its own killed predecessor, which no one renews, for another process', async () => {
      await withClient(database.url, (client) =>
        client.query(
          `INSERT INTO supply_sync_members (process, instance, info, joined_at, expires_at)
           VALUES ('killed-before-restart', 'phoenix', '{}', now(), now() + interval '1 minute')`,
        ),
      );
      const lines: string[] = [];
      let readings = 0;
      const restarted = member('phoenix', false, {
        log: {
          warn: (_, message) => void lines.push(message),
          info: (_, message) => void lines.push(message),
        },
        onReading: () => void (readings += 1),
      });
      await restarted.start();
      await waitFor('five readings of the members', () => readings >= 5, 10_000);
      expect(lines).toEqual([]);
    });
  },
);
