/**
 * The bound on the command queue over HTTP, against a running daemon: with `max_pending_per_kind` commands of a kind
 * waiting, one more of that kind is answered 429 with Retry-After and a detail saying what to do, and nothing is
 * queued; the same command asked again joins the waiting one. The commands wait because each is a cursor reset of
 * a job whose run is in flight (carried out only once that run has ended).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { sandboxControl } from '../../src/sandbox/harness/client.js';
import type { QueuedCommand } from '../../src/state/index.js';
import { eventually, openHealthWorld, type HealthWorld } from '../daemon/health-support.js';

const OPERATOR_TOKEN = 'operator-token-4f3e2d1c0b9a8877';
const HEADERS = { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' };
const ORDERS = 'orders:/supplier/orders';
const SALES = 'sales:/supplier/orders';
const BRANCHES = {
  br_tlv: 'TLV01',
  br_hrz: 'HRZ02',
  br_jlm: 'JLM03',
  br_hfa: 'HFA04',
  br_bsh: 'BSH05',
  br_rnn: 'RNN06',
};

let world: HealthWorld;
let daemon: Daemon;

beforeAll(async () => {
  world = await openHealthWorld();
  daemon = await world.start({
    server: {
      port: 0,
      auth: { users: [{ name: 'olga', role: 'operator', token: OPERATOR_TOKEN }] },
      control: { max_pending_per_kind: 1 },
    },
    connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
    // The schedules never fire during the test: the runs are the test's own.
    jobs: {
      orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' },
      sales: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' },
    },
    mappings: { branches: BRANCHES },
  });
});
afterAll(async () => world?.close());

const reset = (stream: string) =>
  fetch(`${daemon.opsUrl}/cursors/${encodeURIComponent(stream)}/reset`, {
    method: 'POST',
    headers: HEADERS,
    body: '{}',
  });

const resetsAsked = (): QueuedCommand[] =>
  daemon.env.state.commands.list({ limit: 1000 }).filter((c) => c.kind === 'cursor.reset');

describe('a full command queue over HTTP', () => {
  it(
    'answers the command over the bound 429 with Retry-After and what to do, queueing nothing twice',
    { timeout: 120_000 },
    async () => {
      const { state } = daemon.env;
      await Promise.all([daemon.runNow('orders', 'operator'), daemon.runNow('sales', 'operator')]);
      expect(state.cursors.get(ORDERS)).not.toBeNull();
      expect(state.cursors.get(SALES)).not.toBeNull();
      const before = new Set(state.runs.list().map((run) => run.id));

      // Every API request waits, so both jobs' next runs are in flight while the commands are asked.
      const control = sandboxControl(world.sandbox.controlUrl);
      await control.setFaults({ latency_ms: 1_500, latency_rate: 1 });
      const running = Promise.all([daemon.runNow('orders', 'operator'), daemon.runNow('sales', 'operator')]);
      await eventually(() => {
        const open = state.runs.list().filter((run) => !before.has(run.id) && run.endedAt === null);
        return open.length === 2 ? open : undefined;
      });

      const first = reset(ORDERS);
      const [waiting] = await eventually(() => {
        const pending = state.commands.pendingOfKind('cursor.reset');
        return pending.length === 1 ? pending : undefined;
      });
      const again = reset(ORDERS);
      const refused = await reset(SALES);
      expect(refused.status).toBe(429);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const body = (await refused.json()) as { error: string; command: number; detail: string };
      expect(body).toMatchObject({ error: 'queue_full', command: waiting?.id });
      expect(body.detail).toContain(`the oldest is command #${waiting?.id}); nothing was queued`);
      expect(body.detail).toContain(`supply-sync commands cancel ${waiting?.id}`);
      // Whatever the runs do meanwhile, the refused reset was not queued: only the one waiting exists.
      expect(resetsAsked().map((c) => c.id)).toEqual([waiting?.id]);

      await control.clearFaults();
      await running;
      const answers = await Promise.all([first, again]);
      const commands = (await Promise.all(answers.map((a) => a.json()))) as Array<{
        command: number;
        status: string;
      }>;
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(commands.map((c) => [c.command, c.status])).toEqual([
        [waiting?.id, 'done'],
        [waiting?.id, 'done'],
      ]);
      expect(resetsAsked()).toEqual([
        expect.objectContaining({ id: waiting?.id, status: 'done', attempts: 1 }),
      ]);
      expect(state.cursors.get(ORDERS)).toBeNull();
      expect(state.cursors.get(SALES)).not.toBeNull();
    },
  );
});
