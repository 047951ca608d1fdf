/**
 * A cursor reset given while the stream's job is running: the run in flight read the cursor before the reset and
 * saves it after each page, so a reset carried out at once would be undone silently. The daemon carries the reset
 * out when that run has ended, before the next, so the next run really re-reads the stream from its start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFingerprint } from '../../src/daemon/control/fingerprint.js';
import type { Daemon } from '../../src/daemon/index.js';
import { sandboxControl } from '../../src/sandbox/harness/client.js';
import { eventually, openHealthWorld, type HealthWorld } from './health-support.js';

const STREAM = 'orders:/supplier/orders';

const CONFIG = {
  connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
  // The schedule never fires during the test: the runs are the test's own.
  jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
  mappings: {
    branches: {
      br_tlv: 'TLV01',
      br_hrz: 'HRZ02',
      br_jlm: 'JLM03',
      br_hfa: 'HFA04',
      br_bsh: 'BSH05',
      br_rnn: 'RNN06',
    },
  },
};

describe('a cursor reset given while the job runs', () => {
  let world: HealthWorld;
  let daemon: Daemon;

  beforeAll(async () => {
    world = await openHealthWorld();
    daemon = await world.start(CONFIG);
  });
  afterAll(async () => {
    await world?.close();
  });

  it(
    'is carried out after the run in flight, which cannot save the old cursor over it',
    { timeout: 120_000 },
    async () => {
      const { state } = daemon.env;
      await daemon.runNow('orders', 'operator');
      const first = state.runs.last('orders');
      expect(first).toMatchObject({ outcome: 'ok' });
      expect(state.cursors.get(STREAM)?.watermarkMs).not.toBeNull();

      // Every API request of the next run waits, so the reset comes while the run reads its first page.
      const control = sandboxControl(world.sandbox.controlUrl);
      await control.setFaults({ latency_ms: 1_500, latency_rate: 1 });
      const running = daemon.runNow('orders', 'operator');
      const inFlight = await eventually(() => {
        const run = state.runs.last('orders');
        return run !== null && run.id !== first?.id ? run : undefined;
      });
      const id = state.commands.enqueue({
        kind: 'cursor.reset',
        args: { stream: STREAM },
        fingerprint: configFingerprint(daemon.env.loaded.config),
        requestedBy: 'cli:ann@erp-host',
      });
      expect(state.runs.list({ job: 'orders' }).find((run) => run.id === inFlight.id)?.endedAt).toBeNull();

      await running;
      await control.clearFaults();
      const ended = state.runs.list({ job: 'orders' }).find((run) => run.id === inFlight.id);
      expect(ended).toMatchObject({ outcome: 'ok' });
      const done = await eventually(() => {
        const command = state.commands.get(id);
        return command?.status === 'done' || command?.status === 'failed' ? command : undefined;
      });
      expect(done).toMatchObject({ status: 'done', result: { stream: STREAM }, attempts: 1 });
      // The reset holds after the run: the next run starts from the stream's start.
      expect(state.cursors.get(STREAM)).toBeNull();
      expect(done.finishedAt).toBeGreaterThanOrEqual(ended?.endedAt ?? Number.POSITIVE_INFINITY);

      await daemon.runNow('orders', 'operator');
      const reread = state.runs.last('orders');
      expect(reread).toMatchObject({ outcome: 'ok' });
      expect(reread?.counts['fetched']).toBeGreaterThanOrEqual(
        first?.counts['fetched'] ?? Number.POSITIVE_INFINITY,
      );
      expect(state.cursors.get(STREAM)?.watermarkMs).not.toBeNull();
    },
  );
});
