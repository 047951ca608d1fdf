/**
 * A CLI command waiting for the daemon never hangs: the daemon (a child process, as systemd runs it) is frozen so it
 * cannot carry out the queued run, then killed with SIGKILL: the waiting `sync` ends, naming its command and saying
 * it stays queued, within two presence checks (seconds, well under 30 s), with the exit code of "queued, not
 * finished". SIGTERM and SIGINT to a waiting `sync` end it at once the same way.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { compiledEntry } from '../support/compiled-entry.js';

const ROOT = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-never-hangs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const configFile = join(dir, 'supply-sync.yaml');
writeFileSync(
  configFile,
  JSON.stringify({
    api: { sandbox: 'embedded' },
    state: { path: 'state.db' },
    server: { port: 0 },
    connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
    jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
    mappings: { branches: { br_tlv: 'TLV01' } },
  }),
);

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: readonly string[]): { child: ChildProcess; ended: Promise<Ended> } {
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
  return { child, ended };
}

/** Polls `probe` (a read of the state) until it holds; bounded by the test's timeout. */
async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('a waiting sync', () => {
  let daemon: ReturnType<typeof start>;
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
  const pendingSync = (): number | undefined => state().commands.pendingOfKind('sync')[0]?.id;

  beforeEach(async () => {
    daemon = start(['run']);
    await until(() => lockHolder() === daemon.child.pid);
    // Frozen, it holds the state and drains nothing: the run stays queued.
    daemon.child.kill('SIGSTOP');
  });
  afterEach(async () => {
    daemon.child.kill('SIGKILL');
    await daemon.ended;
    reader?.close();
    reader = undefined;
    // Each test waits on a command of its own (an identical pending one would be merged into).
    const writer = openStateStore({ file: join(dir, 'state.db'), clock: systemClock, lock: false });
    for (const queued of writer.commands.unfinished()) writer.commands.cancel(queued.id, 'test');
    writer.close();
  });

  it('ends with the command id when the daemon is killed with SIGKILL', { timeout: 90_000 }, async () => {
    const sync = start(['sync', 'orders']);
    await until(() => pendingSync() !== undefined);
    const id = pendingSync();
    daemon.child.kill('SIGKILL');
    const killedAt = Date.now();
    const ended = await sync.ended;
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    expect(ended.code).toBe(3);
    expect(ended.stderr).toBe(
      `error: the daemon that held the state file (pid ${daemon.child.pid}) is gone: command #${id} stays queued: a ` +
        `daemon that starts before it expires carries it out (or \`supply-sync commands cancel ${id}\`); follow it ` +
        `with \`supply-sync commands show ${id}\` (command_queued)\n`,
    );
    expect(state().commands.get(id ?? 0)?.status).toBe('pending');
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`ends at once on ${signal}, saying the command stays queued`, { timeout: 90_000 }, async () => {
      const sync = start(['sync', 'orders']);
      await until(() => pendingSync() !== undefined);
      const id = pendingSync();
      const sentAt = Date.now();
      sync.child.kill(signal);
      const ended = await sync.ended;
      // At once: sooner than the waiting command's next presence check (2 s).
      expect(Date.now() - sentAt).toBeLessThan(2_000);
      expect(ended.code).toBe(3);
      expect(ended.stderr).toContain(`error: ${signal}: stopped waiting: command #${id} stays queued`);
      expect(state().commands.get(id ?? 0)?.status).toBe('pending');
    });
  }
});
