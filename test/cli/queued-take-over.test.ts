/**
 * A state command given while the state file's lock is held by something that does not drain the queue (here a
 * plain holder of the lock, as a one-off `sync` run is): the command is queued and waited for, and once the lock is
 * free the CLI carries the queued command out itself, once, with the output it has without a daemon.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-take-over-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const configFile = join(dir, 'supply-sync.yaml');
writeFileSync(
  configFile,
  JSON.stringify({
    api: { sandbox: 'embedded' },
    state: { path: 'state.db' },
    connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
    jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
    mappings: { branches: { br_tlv: 'TLV01' } },
  }),
);

describe('a queued command nobody drains', () => {
  it('is carried out by the CLI itself once the lock is free', { timeout: 60_000 }, async () => {
    const holder = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
    const given = runCli(['jobs', 'pause', 'orders', '--reason', 'audit', '--config', configFile]);
    // Counted, not timed: the command is in the queue, waiting, before the lock is let go.
    for (;;) {
      if (holder.commands.unfinished().length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(holder.pausedJobs.get('orders')).toBeNull();
    holder.close();
    const result = await given;
    expect(result).toMatchObject({ code: 0, stdout: 'orders paused: audit\n' });
    const state = openStateStore({ file: join(dir, 'state.db'), clock: systemClock, readOnly: true });
    try {
      expect(state.pausedJobs.get('orders')).toMatchObject({ reason: 'audit' });
      expect(state.commands.get(1)).toMatchObject({ status: 'done', attempts: 1, kind: 'jobs.pause' });
    } finally {
      state.close();
    }
  });
});
