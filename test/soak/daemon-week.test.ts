/**
 * Seven simulated days of the supplier daemon on a manual clock shared with the sandbox (which crosses Israel's
 * move to summer time on 2026-03-27): orders every 15 minutes, documents hourly, the catalog nightly at 02:30,
 * OAuth tokens that expire every hour, buyers' orders and ERP activity through the week, and six hours of webhooks
 * refused for a skewed signature clock (the sandbox retries them on its schedule). Finishes in minutes of real time.
 *
 * Checks: each nightly run exactly once per local day; tokens refreshed; retried webhooks delivered; every order in
 * the ERP; heap (after gc) and state-file growth flat, i.e. the last days grow no faster than the first.
 */
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { openDemoErp, type DemoErp } from '../../connectors/sql/demo-erp/index.js';
import { REPO_ROOT } from '../crash/harness/child.js';
import { compiledEntry } from '../support/compiled-entry.js';
import { createApiClient } from '../../src/client/index.js';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { createManualClock, startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { forceGc, localDate, settleRuns } from './soak-support.js';

const TZ = 'Asia/Jerusalem';
const DAYS = 7;
const STEP_MS = 5 * 60_000;
const DAY_MS = 86_400_000;
const START = Date.UTC(2026, 2, 23, 22, 0, 0); // 2026-03-24 00:00 in Jerusalem (UTC+2)
/**
 * The week is counted in simulated steps; real time is only a guard (on an idle 2-core machine the week takes under
 * three minutes), and a run past it fails saying how far into the week it got.
 */
const SOAK_GUARD_MS = 600_000;

/** One round of the ERP users' work, in a child process (see erp-activity.ts). */
async function erpActivity(erpDir: string, now: number, seed: number): Promise<void> {
  const child = spawn(
    process.execPath,
    [compiledEntry(path.join(REPO_ROOT, 'test/soak/erp-activity.ts')), erpDir, String(now), String(seed)],
    {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`ERP activity failed (${String(code)}): ${errors}`);
}

const hasFlows = ['orders', 'documents', 'catalog'].every(
  (flow) => buildPluginRegistry().flow(flow) !== undefined,
);

describe.skipIf(!hasFlows)('a week of the daemon on a fake clock', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const step of cleanup.reverse()) await step();
  });

  it(
    'runs nightly jobs once a day and stays flat in memory and state size',
    // Past the guard, which fails with the counts reached.
    { timeout: SOAK_GUARD_MS + 120_000 },
    async () => {
      const gc = forceGc();
      const clock = createManualClock(START);
      const dir = await mkdtemp(path.join(tmpdir(), 'supply-sync-soak-'));
      cleanup.push(() => rm(dir, { recursive: true, force: true }));
      // The sandbox's background work (webhook deliveries and retries, file clean-up) runs only when the loop below
      // calls tick(): the demo ERP is written from this process, and a daemon run woken by a webhook in the middle of
      // that write would wait on the ERP's lock with this process's event loop blocked.
      const sandbox: RunningSandbox = await startSandbox({
        clock,
        allowHttpWebhooks: true,
        tickIntervalMs: 3_600_000,
        rateLimitOverrides: { all: { per_minute: 1_000_000 } },
      });
      cleanup.push(() => sandbox.close());
      // The test's own reads use real time: after the week the fake clock stands still and a wait on it never ends.
      const harnessApi = createApiClient({
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.keys.supplier,
        rateLimit: { perMinute: 1_000_000 },
      });
      cleanup.push(() => harnessApi.close());
      const endpoint = await harnessApi.webhooks.create({
        url: 'http://127.0.0.1:9/webhooks',
        events: ['order.created', 'order.updated', 'order.cancelled', 'document.received'],
      });
      const clientId = sandbox.clients.find((client) => client.key === sandbox.keys.supplier)?.client_id;
      expect(clientId).toBeDefined();
      const configFile = path.join(dir, 'supply-sync.yaml');
      await writeFile(
        configFile,
        [
          'api:',
          `  base_url: ${sandbox.baseUrl}`,
          `  api_key: ${sandbox.keys.supplier}`,
          '  auth: oauth',
          `  client_id: ${String(clientId)}`,
          'state:',
          '  path: state/soak.db',
          'server:',
          '  port: 0',
          `  webhook_secrets: ['${String(endpoint.secret)}']`,
          'log:',
          '  level: silent',
          `timezone: ${TZ}`,
          'connectors:',
          '  erp:',
          '    type: demo-erp',
          '    data_dir: erp',
          '    journal: false',
          'jobs:',
          '  orders: { flow: orders, connector: erp, schedule: "*/15 * * * *", options: { start_from: "2026-03-23T00:00:00Z" } }',
          '  documents: { flow: documents, connector: erp, schedule: "0 * * * *" }',
          '  catalog: { flow: catalog, connector: erp, schedule: "30 2 * * *", options: { price_lists: { PL-STD: pl_standard } } }',
          'mappings:',
          '  branches: { br_tlv: TLV01, br_hrz: HRZ02, br_jlm: JLM03, br_hfa: HFA04, br_bsh: BSH05, br_rnn: RNN06 }',
        ].join('\n'),
      );
      const registry = buildPluginRegistry();
      const daemon: Daemon = await runDaemon({
        loaded: loadConfig(configFile, { registry }),
        registry,
        clock,
        port: 0,
      });
      cleanup.push(async () => void (await daemon.stop(10_000)));
      await harnessApi.webhooks.update(endpoint.id, { url: daemon.webhookUrl });
      const stateFile = path.join(dir, 'state', 'soak.db');
      const orderIds: string[] = [];
      const heap: number[] = [];
      const stateBytes: number[] = [];

      const steps = (DAYS * DAY_MS) / STEP_MS;
      const guardEnds = Date.now() + SOAK_GUARD_MS;
      for (let step = 1; step <= steps; step += 1) {
        const day = Math.floor((step * STEP_MS) / DAY_MS);
        if (Date.now() > guardEnds) {
          throw new Error(
            `the soak reached step ${step - 1} of ${steps} (day ${day} of ${DAYS}) in ${SOAK_GUARD_MS} ms (guard); ` +
              `${orderIds.length} orders sent, heap by day ${heap.map(mb).join(', ')} MB`,
          );
        }
        // Day 3, six hours: the sender's clock is 15 minutes ahead, beyond the 5-minute tolerance; deliveries fail and
        // are retried on the sandbox's schedule (a whole day of failures would disable the endpoint, as the API does).
        if (step * STEP_MS === 3 * DAY_MS) await sandbox.control.setFaults({ signature_skew_seconds: 900 });
        if (step * STEP_MS === 3 * DAY_MS + 6 * 3_600_000) await sandbox.control.clearFaults();
        if (step % 12 === 0) {
          const sent = (await sandbox.control.action('buyer_send_order', { count: 1 })) as {
            order_ids: string[];
          };
          orderIds.push(...sent.order_ids);
        }
        if (step % 72 === 0) await erpActivity(path.join(dir, 'erp'), clock.now(), step);
        // Jump only when nothing runs: a run in flight would see five minutes pass during one call.
        await settleRuns(daemon.env.state, clock, {
          background: () => sandbox.tick(),
          tickMs: 50,
          maxTicks: 5_000,
          quietLooks: 10,
        });
        clock.advance(STEP_MS);
        // While runs are open, simulated time moves 50 ms per 4 ms of real time: compressed, but slowly enough that
        // a call's own deadline (30 s) still measures the daemon, not the test's speed.
        await settleRuns(daemon.env.state, clock, {
          background: () => sandbox.tick(),
          tickMs: 50,
          maxTicks: 5_000,
        });
        if ((step * STEP_MS) % DAY_MS === 0) {
          gc();
          heap.push(process.memoryUsage().heapUsed);
          stateBytes.push(await stateSize(stateFile));
          process.stdout.write(
            `soak day ${day}: heap ${mb(heap.at(-1))} MB, state ${mb(stateBytes.at(-1))} MB\n`,
          );
        }
      }

      const state = daemon.env.state;
      const nightly = state.db
        .prepare(
          "SELECT started_at FROM runs WHERE job = 'catalog' AND trigger = 'schedule' ORDER BY started_at",
        )
        .all() as { started_at: number }[];
      const perDay = new Map<string, number>();
      for (const run of nightly) {
        const date = localDate(run.started_at, TZ);
        perDay.set(date, (perDay.get(date) ?? 0) + 1);
      }
      const expectedDays = Array.from({ length: DAYS }, (_, i) =>
        localDate(START + i * DAY_MS + 12 * 3_600_000, TZ),
      );
      expect(Object.fromEntries(perDay)).toEqual(Object.fromEntries(expectedDays.map((d) => [d, 1])));

      const failed = (
        state.db
          .prepare("SELECT job, trigger, started_at, error FROM runs WHERE outcome = 'failed'")
          .all() as {
          job: string;
          trigger: string;
          started_at: number;
          error: string | null;
        }[]
      ).map(
        (run) =>
          `${run.job} (${run.trigger}) at ${new Date(run.started_at).toISOString()}: ${String(run.error)}`,
      );
      expect(failed).toEqual([]);

      // Tokens live an hour: a week of calls needs well over a hundred of them.
      const metrics = await daemon.metrics.registry.getSingleMetricAsString('supply_sync_api_calls_total');
      const tokenCalls = [...metrics.matchAll(/route="\/oauth\/token",status="200"} (\d+)/g)].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
      expect(tokenCalls).toBeGreaterThan(100);

      // The skewed day's deliveries were refused, then delivered by the sandbox's retries.
      const deliveries = [];
      for await (const delivery of harnessApi.webhooks.deliveries(endpoint.id).items())
        deliveries.push(delivery);
      expect(deliveries.some((d) => d.response_status === 400)).toBe(true);
      const refusedEvents = new Set(
        deliveries.filter((d) => d.response_status === 400).map((d) => d.event_id),
      );
      const deliveredLater = new Set(
        deliveries
          .filter(
            (d) => d.response_status !== null && d.response_status !== undefined && d.response_status < 300,
          )
          .map((d) => d.event_id),
      );
      expect([...refusedEvents].filter((id) => deliveredLater.has(id)).length).toBeGreaterThan(0);

      const erp: DemoErp = await openDemoErp(path.join(dir, 'erp'));
      cleanup.push(() => erp.driver.close());
      const inErp = new Set(
        (await erp.driver.query('SELECT API_ORDER_ID AS id FROM ORDERS', {})).rows.map((row) =>
          String(row['id']),
        ),
      );
      expect(orderIds.filter((id) => !inErp.has(id))).toEqual([]);

      // Flat: the last days' growth is no faster than the early days' (loose bounds; no timing involved).
      const early = (heap[2] ?? 0) - (heap[0] ?? 0);
      const late = (heap[6] ?? 0) - (heap[4] ?? 0);
      expect(late).toBeLessThan(Math.max(early * 1.5, 8 * 1024 * 1024));
      const earlyState = (stateBytes[2] ?? 0) - (stateBytes[0] ?? 0);
      const lateState = (stateBytes[6] ?? 0) - (stateBytes[4] ?? 0);
      expect(lateState).toBeLessThanOrEqual(Math.max(earlyState * 1.5, 256 * 1024));
      process.stdout.write(
        `soak: ${nightly.length} nightly runs, ${tokenCalls} token calls, ${orderIds.length} orders, ` +
          `${deliveries.length} webhook deliveries\n`,
      );
    },
  );
});

async function stateSize(file: string): Promise<number> {
  let total = 0;
  for (const suffix of ['', '-wal']) {
    try {
      total += (await stat(`${file}${suffix}`)).size;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return total;
}

function mb(bytes: number | undefined): string {
  return ((bytes ?? 0) / 1_048_576).toFixed(1);
}
