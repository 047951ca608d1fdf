/**
 * The command queue from the CLI while the state file's lock is held by something that does not drain it (as a
 * one-off run holds it, or a daemon that stopped draining): identical asks are merged, one more than the bound is
 * refused naming the pending command, `commands list|show|cancel` read and steer the queue, and a command that
 * waits longer than server.control.command_ttl is recorded `expired` and the waiting CLI says so with its id.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-queue-'));
const configFile = (ttl: string): string => {
  const file = join(dir, `supply-sync-${ttl}.yaml`);
  writeFileSync(file, config(ttl));
  return file;
};
const config = (ttl: string): string =>
  JSON.stringify({
    api: { sandbox: 'embedded' },
    state: { path: 'state.db' },
    server: { control: { command_ttl: ttl, max_pending_per_kind: 2 } },
    connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
    jobs: {
      orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' },
      sales: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' },
      stock: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' },
    },
    mappings: { branches: { br_tlv: 'TLV01' } },
  });
const hourly = configFile('1h');
const shortLived = configFile('2s');
const cli = (...args: string[]) => runCli([...args, '--config', hourly]);
const idOf = (text: string): number => Number(/command #(\d+)/.exec(text)?.[1]);

describe('the command queue from the CLI', () => {
  let holder: StateStore;
  beforeAll(() => {
    holder = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
  });
  afterAll(() => {
    holder?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'merges identical asks, refuses one over the bound naming the pending one, lists, shows and cancels',
    { timeout: 60_000 },
    async () => {
      const first = await cli('sync', 'orders', '--no-wait');
      expect(first.code).toBe(0);
      const id = idOf(first.stdout);
      expect(id).toBeGreaterThan(0);
      expect(idOf((await cli('sync', 'orders', '--no-wait')).stdout)).toBe(id);
      const second = idOf((await cli('sync', 'sales', '--no-wait')).stdout);
      expect(second).not.toBe(id);
      const full = await cli('sync', 'stock', '--no-wait');
      expect(full.code).toBe(1);
      expect(full.stderr).toContain(`(the oldest is command #${id}); nothing was queued`);
      expect(full.stderr).toContain('(queue_full)');
      expect(holder.commands.pendingOfKind('sync').map((c) => c.id)).toEqual([id, second]);

      const list = await cli('commands', 'list');
      expect(list.code).toBe(0);
      expect(list.stdout.split('\n')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^#${second} sync \\{"job":"sales"\\} pending \\(asked \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d Asia\\/Jerusalem by cli:.+; attempts 0\\)$`,
          ),
        ),
        expect.stringMatching(new RegExp(`^#${id} sync \\{"job":"orders"\\} pending `)),
        '',
      ]);
      expect(await cli('commands', 'cancel', String(second))).toMatchObject({
        code: 0,
        stdout: `command #${second} cancelled; nothing was done\n`,
      });
      const again = await cli('commands', 'cancel', String(second));
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('it is finished already (failed: cancelled) (command_not_pending)');
      const shown = await cli('commands', 'show', String(second));
      expect(shown.stdout).toContain('status: failed: cancelled');
      // Times in the config's zone, labelled, as everywhere else.
      expect(shown.stdout).toMatch(/^asked: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d Asia\/Jerusalem by cli:/m);
      expect(shown.stdout).toMatch(/^finished: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d Asia\/Jerusalem$/m);
      expect(shown.stdout).toMatch(/^why: cancelled by cli:.+ before a daemon took it; nothing was done$/m);
      expect((await cli('commands', 'show', '999')).stderr).toContain('no command #999');
      // With the cancelled one gone the kind has room again.
      expect((await cli('sync', 'stock', '--no-wait')).code).toBe(0);
    },
  );

  it(
    'expires a command no daemon takes, and the waiting CLI says so with its id',
    { timeout: 60_000 },
    async () => {
      const waited = await runCli(['jobs', 'pause', 'orders', '--reason', 'audit', '--config', shortLived]);
      expect(waited.code).toBe(1);
      const command = holder.commands.list({ limit: 1 })[0];
      expect(command).toMatchObject({ kind: 'jobs.pause', status: 'failed', errorCode: 'expired' });
      expect(waited.stderr).toBe(
        `error: command #${command?.id}: no daemon took it within 2s (server.control.command_ttl); nothing was done: ` +
          'give it again when a daemon runs (expired)\n',
      );
      expect(holder.pausedJobs.get('orders')).toBeNull();
      // The earlier run-now asks expired as well: none is carried out late by a daemon that starts now.
      expect(holder.commands.unfinished()).toEqual([]);
    },
  );
});
