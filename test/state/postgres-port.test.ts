/**
 * What only the PostgreSQL state has: the leadership fence seam, a connection lost in the middle of a
 * transaction, placeholder numbering, and migrations kept version for version with SQLite's.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LeadershipLostError, MIGRATIONS, type Fence, type SyncSqlPort } from '../../src/state/index.js';
import { PG_MIGRATIONS } from '../../src/state/postgres/migrations.js';
import { numberPlaceholders } from '../../src/state/postgres/placeholders.js';
import { sharedWorkerThread } from '../../src/state/postgres/channel.js';
import { PgSyncPort } from '../../src/state/postgres/port.js';
import { openPgStateStore, type PgStateStore } from '../../src/state/postgres/store.js';
import { PgScratchDatabases, probePostgres } from './backends.js';
import { FakeClock } from './support.js';

describe('PostgreSQL state without a server', () => {
  it('numbers placeholders outside literals, quoted names and comments', () => {
    expect(numberPlaceholders(`SELECT '?', "a?" FROM t -- why?\nWHERE a = ? AND b IN (?, ?) /* ? */`)).toBe(
      `SELECT '?', "a?" FROM t -- why?\nWHERE a = $1 AND b IN ($2, $3) /* ? */`,
    );
    expect(numberPlaceholders("SELECT 'it''s ?' , ?")).toBe("SELECT 'it''s ?' , $1");
  });

  it('has a PostgreSQL migration for every SQLite one, with the same version and name', () => {
    expect(PG_MIGRATIONS.map((m) => [m.version, m.name])).toEqual(MIGRATIONS.map((m) => [m.version, m.name]));
  });
});

const skipReason = await probePostgres();
const title = 'PostgreSQL state port';

describe.skipIf(skipReason !== null)(skipReason === null ? title : `${title} (skipped: ${skipReason})`, () => {
  const scratch = new PgScratchDatabases();
  const clock = new FakeClock();
  let url: string;
  let state: PgStateStore;

  beforeAll(async () => {
    url = await scratch.create('ss_port');
  });
  afterAll(() => scratch.dropAll());
  beforeEach(() => {
    state = openPgStateStore({ url, clock });
    state.db.exec('TRUNCATE kv, ledger, cursors');
  });
  afterEach(() => state.close());

  /** A fence whose epoch the test moves, recording the transactions it saw. */
  function fence(): Fence & { moved: boolean; checks: number } {
    return {
      moved: false,
      checks: 0,
      check(tx: SyncSqlPort) {
        this.checks += 1;
        // The check runs inside the transaction: a statement here is part of it.
        expect(tx.inTransaction).toBe(true);
        if (this.moved) throw new LeadershipLostError('lease_taken', 'leadership lost: the term moved');
      },
    };
  }

  it('runs the fence first in every write transaction, and in writes made outside one', () => {
    const guard = fence();
    state.setFence(guard);
    state.transaction(() => {
      state.kv.set('n', 'a', 1);
      state.transaction(() => state.kv.set('n', 'b', 2));
    });
    expect(guard.checks).toBe(1);
    state.kv.set('n', 'c', 3);
    expect(guard.checks).toBe(2);
    expect(state.kv.get('n', 'c')).toBe(3);
    expect(guard.checks).toBe(2);
  });

  it('commits nothing once the fence says leadership moved', () => {
    const guard = fence();
    state.setFence(guard);
    state.cursors.save({ stream: 's', watermarkMs: 1, passCursor: null, passSince: null, passMaxMs: null });
    guard.moved = true;
    expect(() =>
      state.transaction(() => {
        state.ledger.record({ flow: 'f', connector: 'c', recordKey: 'r', version: '1' });
        state.cursors.save({ stream: 's', watermarkMs: 2, passCursor: null, passSince: null, passMaxMs: null });
      }),
    ).toThrow(LeadershipLostError);
    expect(() => state.kv.set('n', 'late', 1)).toThrow(LeadershipLostError);
    state.setFence(null);
    expect(state.cursors.get('s')?.watermarkMs).toBe(1);
    expect(state.ledger.count()).toBe(0);
    expect(state.kv.get('n', 'late')).toBeUndefined();
  });

  it('answers every one of many synchronous calls with its own result', () => {
    // Each call is a round trip to the server through the worker thread: enough of them that a reply handed to the
    // wrong call would show, few enough for a loaded machine (20,000 took over 30 s under a full npm test).
    const select = state.db.prepare('SELECT ? AS n');
    const answers: string[] = [];
    for (let n = 0; n < 3_000; n += 1) answers.push((select.get(n) as { n: string }).n);
    expect(answers).toEqual(Array.from({ length: 3_000 }, (_, n) => String(n)));
  });

  it('opens a read-only state whose session refuses writes', () => {
    state.kv.set('n', 'k', 1);
    const reader = openPgStateStore({ url, clock, readOnly: true });
    try {
      expect(reader.kv.get('n', 'k')).toBe(1);
      expect(() => reader.kv.set('n', 'k', 2)).toThrow(/read-only transaction/);
    } finally {
      reader.close();
    }
    expect(state.kv.get('n', 'k')).toBe(1);
  });

  it('fails the rest of a transaction whose connection was lost, commits none of it, then reconnects', () => {
    // A second session on the same database ends the state's session, as a server restart or a cut cable would.
    const admin = new PgSyncPort({ url });
    try {
      expect(() =>
        state.transaction(() => {
          state.ledger.record({ flow: 'f', connector: 'c', recordKey: 'r1', version: '1' });
          admin
            .prepare(
              `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
               WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name = 'supply-sync'`,
            )
            .all();
          state.ledger.record({ flow: 'f', connector: 'c', recordKey: 'r2', version: '1' });
          state.cursors.save({ stream: 'f', watermarkMs: 9, passCursor: null, passSince: null, passMaxMs: null });
        }),
      ).toThrow();
    } finally {
      admin.close();
    }
    expect(state.ledger.count()).toBe(0);
    expect(state.cursors.get('f')).toBeNull();
    state.kv.set('n', 'after', 1);
    expect(state.kv.get('n', 'after')).toBe(1);
  });

  it('gives up only the session the server stops answering; the others keep their connections', async () => {
    const proxy = await startFreezableProxy(new URL(url));
    const direct = new PgSyncPort({ url });
    const viaProxy = (): PgSyncPort => {
      const through = new URL(url);
      through.port = String(proxy.port);
      return new PgSyncPort({ url: through.toString(), statementTimeoutMs: 1_000, connectTimeoutMs: 1_000 });
    };
    const closing = viaProxy();
    const stuck = viaProxy();
    try {
      const pid = (): number =>
        (direct.query('SELECT pg_backend_pid() AS pid', [], undefined, 'object').rows[0] as { pid: number }).pid;
      const first = pid();
      for (const port of [closing, stuck]) port.query('SELECT 1', [], undefined, 'object');
      proxy.freeze();
      // A close whose server does not answer, then a statement whose server does not answer: neither takes the
      // other sessions of the worker with it.
      closing.close();
      expect(pid()).toBe(first);
      expect(() => stuck.query('SELECT 1', [], undefined, 'object')).toThrow(/did not answer/);
      expect(pid()).toBe(first);
    } finally {
      proxy.stop();
      for (const port of [direct, closing, stuck]) port.close();
    }
  }, 30_000);

  it('tells once, on the next call, that the worker thread crashed, and goes on with a new one', async () => {
    const port = new PgSyncPort({ url });
    try {
      const pid = (): number =>
        (port.query('SELECT pg_backend_pid() AS pid', [], undefined, 'object').rows[0] as { pid: number }).pid;
      const first = pid();
      const worker = sharedWorkerThread();
      if (worker === null) throw new Error('no worker thread serves the port');
      // A session opening without its port: the worker throws where nothing catches it, and ends.
      worker.postMessage({ port: null });
      await new Promise((resolve) => worker.once('exit', resolve));
      expect(() => pid()).toThrow(/the PostgreSQL state worker thread stopped \(.+\); the next call starts a new one/);
      expect(pid()).not.toBe(first);
      expect(sharedWorkerThread()).not.toBe(worker);
    } finally {
      port.close();
    }
  });

  it('serves many ports from one worker thread, each with a connection of its own', () => {
    const threads = (): number => Number(/^Threads:\s+(\d+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]);
    const before = threads();
    const ports = Array.from({ length: 6 }, () => new PgSyncPort({ url }));
    try {
      const pids = ports.map((port) => port.query('SELECT pg_backend_pid() AS pid', [], undefined, 'object'));
      expect(new Set(pids.map((result) => (result.rows[0] as { pid: number }).pid)).size).toBe(6);
      // At most the shared worker itself is new (none when an earlier test of this process started it).
      expect(threads() - before).toBeLessThanOrEqual(1);
    } finally {
      for (const port of ports) port.close();
    }
  });
});

/**
 * A TCP proxy to the server in a process of its own (this thread blocks while a port waits for its answer), frozen
 * with SIGSTOP: its connections stay open and nothing crosses them, as with a server or network that hangs.
 */
async function startFreezableProxy(target: URL): Promise<{ port: number; freeze(): void; stop(): void }> {
  const script = `
    const net = require('node:net');
    const server = net.createServer((client) => {
      const upstream = net.connect(${Number(target.port || 5432)}, ${JSON.stringify(target.hostname)});
      client.pipe(upstream).pipe(client);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(child.stdout, 'data')) as [Buffer];
  return {
    port: Number(line.toString().trim()),
    freeze: () => child.kill('SIGSTOP'),
    stop: () => {
      child.kill('SIGCONT');
      child.kill('SIGKILL');
    },
  };
}
