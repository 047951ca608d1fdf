/**
 * A CLI command waiting for the daemon never hangs, on a state file and on a PostgreSQL state: the daemon (a child
 * process, as systemd runs it) is frozen so it cannot carry out the queued run (at a moment it holds no write to the
 * state file: frozen inside one, it keeps the CLI from queueing, and the CLI says so, the last test), then killed
 * with SIGKILL: the waiting `sync` ends, naming its command and saying it stays queued, with the exit code of
 * "queued, not finished".
 * On a state file the presence is the lock's holder; on PostgreSQL the leader's lease, which the killed daemon no
 * longer renews. SIGTERM and SIGINT to a waiting `sync` end it the same way while the daemon still holds the state.
 * The tests count events, not seconds: the CLI ends because it saw the daemon gone (it names the killed daemon, which
 * had exited) or because of the signal (it names the signal, and the daemon still holds the state afterwards, so
 * nothing else could have ended the wait). Each step's bound only turns a hang into a failure that shows what the
 * daemon and the CLI printed; a step fails at once when a process it waits on has exited.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openPgStateStore, openStateStore, type StateStore } from '../../src/state/index.js';
import { compiledEntry } from '../support/compiled-entry.js';
import { createTempDatabase, postgresProbe, withClient, type TempDatabase } from '../ha/support/postgres.js';
import { stateBackends } from '../support/state-backends.js';

const ROOT = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-never-hangs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASE = {
  api: { sandbox: 'embedded' },
  server: { port: 0 },
  connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
  jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
  mappings: { branches: { br_tlv: 'TLV01' } },
};

function writeConfig(name: string, config: Record<string, unknown>): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, JSON.stringify({ ...BASE, ...config }));
  return file;
}

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Started {
  readonly name: string;
  readonly child: ChildProcess;
  readonly ended: Promise<Ended>;
  /** What it has printed so far, for a failure's message. */
  readonly output: () => string;
}

/** Every process a test started and that has not ended: killed after each test, so none outlives a failed one. */
const running = new Set<Started>();
afterEach(async () => {
  for (const started of running) started.child.kill('SIGKILL');
  await Promise.all([...running].map((started) => started.ended));
});

function start(args: readonly string[], configFile: string): Started {
  const child = spawn(
    process.execPath,
    [compiledEntry(join(ROOT, 'src/cli/main.ts')), ...args, '--config', configFile],
    {
      cwd: ROOT,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<Ended>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
  const output = () => `--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-4000)}`;
  const started = { name: args.join(' '), child, ended, output };
  running.add(started);
  void ended.then(() => running.delete(started));
  return started;
}

/**
 * The CLI's last stderr line (with its newline), its error; before it, a wait that lasted 15 s may have written its
 * waiting note (in a pipe, src/cli/output.ts), and nothing else.
 */
function errorLine(stderr: string): string {
  const lines = stderr.trimEnd().split('\n');
  const notes = lines
    .slice(0, -1)
    .filter((line) => !/ command #\d+, waiting\.\.\. \(15 s so far\)$/.test(line));
  expect(notes).toEqual([]);
  return `${lines.at(-1) ?? ''}\n`;
}

/** How long a step may wait before the test fails with what the processes printed, short of the test's timeout. */
const STEP_BOUND_MS = 60_000;

const exited = (started: Started): boolean =>
  started.child.exitCode !== null || started.child.signalCode !== null;

function stepFailure(what: string, reason: string, watched: readonly Started[]): Error {
  const outputs = watched.map((started) => `\n=== supply-sync ${started.name}\n${started.output()}`);
  return new Error(`${what}: ${reason}${outputs.join('')}`);
}

/**
 * Polls `probe` (a read of the state) until it holds. Fails at once, with what they printed, when one of `watched`
 * has exited (nothing could then make the probe hold), and after STEP_BOUND_MS: a hang is reported, not waited out.
 */
async function until(
  what: string,
  probe: () => boolean | Promise<boolean>,
  watched: readonly Started[],
): Promise<void> {
  const bound = Date.now() + STEP_BOUND_MS;
  while (!(await probe())) {
    const gone = watched.find(exited);
    if (gone !== undefined) throw stepFailure(what, `supply-sync ${gone.name} exited first`, watched);
    if (Date.now() > bound) throw stepFailure(what, `not within ${STEP_BOUND_MS} ms`, watched);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Freezes `daemon` (SIGSTOP) at a moment it holds no write, thawing it for a moment as often as needed. */
async function freezeOutsideAWrite(daemon: Started, outsideAWrite: () => boolean): Promise<void> {
  daemon.child.kill('SIGSTOP');
  await until(
    'the daemon frozen outside a write',
    async () => {
      if (outsideAWrite()) return true;
      daemon.child.kill('SIGCONT');
      await new Promise((resolve) => setTimeout(resolve, 20));
      daemon.child.kill('SIGSTOP');
      return false;
    },
    [daemon],
  );
}

/** `waiting`'s end; after STEP_BOUND_MS, a failure with what the processes printed. */
async function endOf(waiting: Started, watched: readonly Started[]): Promise<Ended> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(stepFailure(`supply-sync ${waiting.name} to end`, `not within ${STEP_BOUND_MS} ms`, watched)),
      STEP_BOUND_MS,
    );
  });
  try {
    return await Promise.race([waiting.ended, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where the state lives, and how the test sees that a daemon holds it. */
interface Backend {
  readonly name: string;
  /** The config of the daemon and the CLI; `killed`: the SIGKILL case (a lease short enough to run out). */
  readonly configFile: (killed: boolean) => string;
  readonly state: () => StateStore;
  readonly heldBy: (daemon: ChildProcess) => Promise<boolean>;
  /**
   * True when the frozen daemon holds no write the CLI's queueing would wait for. A daemon frozen inside a write
   * to the state file keeps every other writer out: the CLI then says so and queues nothing (the last test here).
   */
  readonly outsideAWrite: () => boolean;
  /** What the waiting CLI says once it has seen the killed daemon gone. */
  readonly gone: (daemon: ChildProcess, id: number) => RegExp;
  /** Cancels what a test left queued (an identical pending command would be merged into) and frees the state. */
  readonly reset: () => Promise<void>;
  readonly close: () => Promise<void>;
}

const queuedFate = (id: number): string =>
  `: command #${id} stays queued: a daemon that starts before it expires carries it out (or \`supply-sync ` +
  `commands cancel ${id}\`); follow it with \`supply-sync commands show ${id}\` (command_queued)\n`;
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function cancelUnfinished(state: StateStore): void {
  for (const queued of state.commands.unfinished()) state.commands.cancel(queued.id, 'test');
}

/** The pid the daemon holding `file` recorded, or null while there is none (or no file yet). */
function stateFileHolder(file: string): number | null {
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const row = db.prepare('SELECT pid FROM daemon_lock WHERE id = 1').get() as { pid: number } | undefined;
      return row?.pid ?? null;
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}

/** Whether a write transaction on `file` begins at once (no other connection is inside one). */
function stateFileWritable(file: string): boolean {
  const db = new Database(file, { timeout: 0 });
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return true;
  } catch {
    return false;
  } finally {
    db.close();
  }
}

function fileBackend(): Backend {
  const file = writeConfig('file', { state: { path: 'state.db' } });
  let reader: StateStore | undefined;
  const state = (): StateStore => {
    reader ??= openStateStore({ file: join(dir, 'state.db'), clock: systemClock, readOnly: true });
    return reader;
  };
  const lockHolder = (): number | null => {
    try {
      const row = state().db.prepare('SELECT pid FROM daemon_lock WHERE id = 1').get() as
        { pid: number } | undefined;
      return row === undefined ? null : row.pid;
    } catch {
      reader?.close();
      reader = undefined;
      return null;
    }
  };
  return {
    name: 'a state file',
    configFile: () => file,
    state,
    heldBy: async (daemon) => lockHolder() === daemon.pid,
    outsideAWrite: () => stateFileWritable(join(dir, 'state.db')),
    gone: (daemon, id) =>
      new RegExp(
        `^${escape(`error: the daemon that held the state file (pid ${daemon.pid}) is gone${queuedFate(id)}`)}$`,
      ),
    async reset() {
      reader?.close();
      reader = undefined;
      const writer = openStateStore({ file: join(dir, 'state.db'), clock: systemClock, lock: false });
      cancelUnfinished(writer);
      writer.close();
    },
    close: async () => reader?.close(),
  };
}

async function postgresBackend(database: TempDatabase): Promise<Backend> {
  const ha = (lease: string) => ({ instance: 'daemon-a', lease, poll_interval: '200ms' });
  const state = { path: 'pg-state.db', url: database.url };
  // Killed, the daemon's lease runs out within 20 s (the CLI queues its command well before, while the frozen
  // daemon's lease is still live); frozen only, it stays live for the whole test, so nothing but the signal can end
  // the waiting CLI.
  const killed = writeConfig('pg-killed', { state, ha: ha('20s') });
  const frozen = writeConfig('pg-frozen', { state, ha: ha('10m') });
  const store = openPgStateStore({ url: database.url, clock: systemClock });
  const leader = () =>
    withClient(database.url, async (client) => {
      const { rows } = await client
        .query<{ holder: string; live: boolean }>(
          'SELECT holder, expires_at > now() AS live FROM supply_sync_leader WHERE id = 1',
        )
        .catch(() => ({ rows: [] }));
      return rows[0];
    });
  return {
    name: 'a PostgreSQL state',
    configFile: (isKilled) => (isKilled ? killed : frozen),
    state: () => store,
    heldBy: async () => {
      const row = await leader();
      return row?.holder === 'daemon-a' && row.live;
    },
    // The queued command is a row of its own: no lock of the daemon's open transaction keeps it out.
    outsideAWrite: () => true,
    gone: (_daemon, id) =>
      new RegExp(
        `^error: the leader daemon-a stopped renewing its lease \\(last heartbeat [^)]+\\); no instance leads now` +
          `${escape(queuedFate(id))}$`,
      ),
    async reset() {
      cancelUnfinished(store);
      // The killed daemon's lease of ten minutes would keep the next test's daemon from leading.
      await withClient(database.url, (client) => client.query('DELETE FROM supply_sync_leader'));
    },
    close: async () => store.close(),
  };
}

/** The state backends to run on: NEVER_HANGS_BACKENDS (test/support/state-backends.ts). */
const BACKENDS: readonly string[] = stateBackends('NEVER_HANGS_BACKENDS');
const probe = BACKENDS.includes('postgres') ? await postgresProbe() : { available: true as const };
const allBackends: Array<{
  name: string;
  key: string;
  skip: string | undefined;
  open: () => Promise<Backend>;
}> = [
  { name: 'a state file', key: 'file', skip: undefined, open: async () => fileBackend() },
  {
    name: 'a PostgreSQL state',
    key: 'postgres',
    skip: probe.available ? undefined : probe.reason,
    open: async () => {
      const database = await createTempDatabase();
      const backend = await postgresBackend(database);
      return {
        ...backend,
        close: async () => {
          await backend.close();
          await database.drop();
        },
      };
    },
  },
];

const backends = allBackends.filter((backend) => BACKENDS.includes(backend.key));

for (const { name, skip, open } of backends) {
  describe.skipIf(skip !== undefined)(
    `a waiting sync on ${name}${skip === undefined ? '' : ` (skipped: ${skip})`}`,
    () => {
      let backend: Backend;
      let daemon: Started;
      const pendingSync = (): number | undefined => backend.state().commands.pendingOfKind('sync')[0]?.id;

      beforeAll(async () => {
        backend = await open();
      }, 60_000);
      afterAll(async () => backend?.close());

      /** A daemon that holds the state and, frozen, drains nothing: the run stays queued. */
      async function frozenDaemon(killed: boolean): Promise<string> {
        const configFile = backend.configFile(killed);
        daemon = start(['run'], configFile);
        await until('the daemon to hold the state', () => backend.heldBy(daemon.child), [daemon]);
        await freezeOutsideAWrite(daemon, backend.outsideAWrite);
        return configFile;
      }
      afterEach(async () => {
        daemon.child.kill('SIGKILL');
        await daemon.ended;
        await backend.reset();
      });

      it(
        'ends with the command id when the daemon is killed with SIGKILL',
        { timeout: 4 * STEP_BOUND_MS },
        async () => {
          const configFile = await frozenDaemon(true);
          const sync = start(['sync', 'orders'], configFile);
          await until('the sync to be queued', () => pendingSync() !== undefined, [daemon, sync]);
          const id = pendingSync();
          daemon.child.kill('SIGKILL');
          const ended = await endOf(sync, [daemon, sync]);
          // The daemon had exited when the CLI ended, and the CLI says that is why.
          expect(daemon.child.signalCode).toBe('SIGKILL');
          expect(ended.code).toBe(3);
          expect(errorLine(ended.stderr)).toMatch(backend.gone(daemon.child, id ?? 0));
          expect(backend.state().commands.get(id ?? 0)?.status).toBe('pending');
        },
      );

      for (const signal of ['SIGTERM', 'SIGINT'] as const) {
        it(
          `ends at once on ${signal}, saying the command stays queued`,
          { timeout: 4 * STEP_BOUND_MS },
          async () => {
            const configFile = await frozenDaemon(false);
            const sync = start(['sync', 'orders'], configFile);
            await until('the sync to be queued', () => pendingSync() !== undefined, [daemon, sync]);
            const id = pendingSync();
            expect(await backend.heldBy(daemon.child)).toBe(true);
            sync.child.kill(signal);
            const ended = await endOf(sync, [daemon, sync]);
            // Nothing but the signal ended the wait: the daemon holds the state still, and the CLI names the signal.
            expect(await backend.heldBy(daemon.child)).toBe(true);
            expect(errorLine(ended.stderr)).toMatch(new RegExp(`^error: ${signal}: stopped waiting: `));
            expect(ended.code).toBe(3);
            expect(ended.stderr).toContain(`error: ${signal}: stopped waiting: command #${id} stays queued`);
            expect(backend.state().commands.get(id ?? 0)?.status).toBe('pending');
          },
        );
      }
    },
  );
}

describe('a command given while another process is inside a write to the state file', () => {
  it(
    'ends with what to do, naming the file and the daemon, and queues nothing',
    { timeout: 4 * STEP_BOUND_MS },
    async () => {
      const stateFile = join(dir, 'busy', 'state.db');
      const configFile = writeConfig('busy', { state: { path: stateFile } });
      const daemon = start(['run'], configFile);
      const writer = { db: undefined as Database.Database | undefined };
      try {
        await until('the daemon to hold the state', () => stateFileHolder(stateFile) === daemon.child.pid, [
          daemon,
        ]);
        await freezeOutsideAWrite(daemon, () => stateFileWritable(stateFile));
        // As a daemon frozen inside a write would: the test's own transaction keeps every other writer out.
        writer.db = new Database(stateFile, { timeout: 0 });
        writer.db.exec('BEGIN IMMEDIATE');
        const sync = start(['sync', 'orders'], configFile);
        const ended = await endOf(sync, [daemon, sync]);
        const pid = daemon.child.pid ?? 0;
        expect(ended.stderr).toBe(
          `error: the state file ${stateFile} stayed locked by another process's write, so the command was not queued ` +
            `(nothing was done); the daemon that holds the file (pid ${pid} on ${hostname()}) may be stopped or ` +
            `stalled: \`ps -o stat= -p ${pid}\` shows T when it is stopped, and \`kill -CONT ${pid}\` lets it go on; ` +
            'then give the command again (state_busy)\n',
        );
        expect(ended.code).toBe(1);
        writer.db.exec('ROLLBACK');
        expect(writer.db.prepare('SELECT count(*) AS n FROM commands').get()).toEqual({ n: 0 });
      } finally {
        writer.db?.close();
        daemon.child.kill('SIGKILL');
        await daemon.ended;
      }
    },
  );
});
