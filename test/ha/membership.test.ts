/**
 * The office's live instances on a real PostgreSQL database (Membership): each sees the others, and what companies
 * each says it cannot run, kept current with its heartbeats; a change of either is told (onChange), the same reading
 * again is not.
 */
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { haConfigSchema, haSettings, Membership } from '../../src/ha/index.js';
import { createTempDatabase, postgresProbe, waitFor, type TempDatabase } from './support/postgres.js';

const probe = await postgresProbe();
const silent = pino({ level: 'silent' });

describe.skipIf(!probe.available)(
  `office membership on PostgreSQL${probe.available ? '' : ` (skipped: ${probe.reason})`}`,
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

    function member(instance: string, cannotRun: () => readonly string[], changes: string[][]): Membership {
      const settings = haSettings(haConfigSchema.parse({ instance, lease: 2_000, poll_interval: 100 }));
      const onChange = (members: readonly string[]): void => void changes.push([...members]);
      const membership = new Membership({ url: database.url, settings, log: silent, onChange, cannotRun });
      started.push(membership);
      return membership;
    }

    it('publishes the companies each instance cannot run, and tells a change of them as a change of the members', async () => {
      let eastCannot: readonly string[] = ['north'];
      const westChanges: string[][] = [];
      const east = member('east', () => eastCannot, []);
      const west = member('west', () => [], westChanges);
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
  },
);
