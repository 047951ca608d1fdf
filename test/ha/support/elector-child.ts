/**
 * A child process for the failover test: one elector, and while it leads, a writer that commits a numbered row every
 * few milliseconds, each in a fenced transaction held open a little while. One JSON line per event on stdout.
 *
 * The writer keeps the term it started with and does NOT stop when the elector reports the term lost: it plays a
 * job that has not heard the news yet (a paused process wakes with its timers all due at once), so the only thing
 * between it and a stale commit is the fence in the database.
 */
import pg from 'pg';
import {
  Elector,
  fencedSessionSettings,
  LeadershipLostError,
  termFence,
  type Term,
} from '../../../src/ha/index.js';
import { announcer, childOptions, haSettings, type LeaderChildOptions } from './leader-child.js';

interface ChildOptions extends LeaderChildOptions {
  readonly writeEveryMs: number;
  /** How long each transaction stays open after its writes, so a freeze can land inside one. */
  readonly holdMs: number;
  /** When set, each transaction also runs one statement this long (pg_sleep) after its writes. */
  readonly statementMs?: number;
}

const options = childOptions<ChildOptions>();
const say = announcer(options.instance);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function writeUntilFenced(term: Term): Promise<void> {
  const fence = termFence(term);
  let client: pg.Client | null = null;
  let written = 0;
  for (;;) {
    await sleep(options.writeEveryMs);
    try {
      if (client === null) {
        client = new pg.Client({ connectionString: options.url, ...fencedSessionSettings(options.leaseMs) });
        client.on('error', () => undefined);
        await client.connect();
      }
      await client.query('BEGIN');
      await fence.checkAsync(client);
      const order = await client.query<{ n: string }>(
        'UPDATE ha_commit_order SET n = n + 1 WHERE id = 1 RETURNING n::text AS n',
      );
      await client.query('INSERT INTO ha_writes (n, epoch, instance) VALUES ($1, $2, $3)', [
        order.rows[0]?.n,
        term.epoch,
        term.holder,
      ]);
      say('open', { epoch: term.epoch });
      if (options.statementMs !== undefined)
        await client.query('SELECT pg_sleep($1)', [options.statementMs / 1000]);
      await sleep(options.holdMs);
      await client.query('COMMIT');
      written += 1;
    } catch (error) {
      await client?.query('ROLLBACK').catch(() => undefined);
      if (error instanceof LeadershipLostError) {
        say('fenced', { epoch: term.epoch, code: error.code, written });
        await client?.end().catch(() => undefined);
        return;
      }
      // The server may have ended a transaction this process sat in while stopped: a new session, same term.
      say('write-error', {
        epoch: term.epoch,
        message: error instanceof Error ? error.message : String(error),
      });
      client?.connection.stream.destroy();
      client = null;
    }
  }
}

const elector = new Elector({
  url: options.url,
  settings: haSettings(options),
  onElected: (epoch) => {
    say('elected', { epoch });
    const term = elector.term();
    if (term !== null) void writeUntilFenced(term);
  },
  onLost: (reason) => say('lost', { reason }),
});

process.on('SIGTERM', () => {
  void elector.stop().then(() => process.exit(0));
});

await elector.start();
say('started', { status: elector.status() });
