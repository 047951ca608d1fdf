/**
 * Failover of whole daemons at the default HA settings (lease 10 s, poll 2 s). Two `supply-sync run` processes,
 * compiled as the release is (lib/daemon-build.ts), share a throw-away PostgreSQL database as their state and run a
 * supplier config (an orders job into the demo ERP, as test/failover does) against a sandbox in its own process.
 * The leader is killed (SIGKILL, then a fresh daemon is started as the standby) and frozen (SIGSTOP past its lease,
 * then SIGCONT: it must wake up as the standby) in turn. Each takeover is timed from the signal to the other daemon's
 * /status saying `role: leader`, and, as a whole-daemon figure, to the end of the new leader's first run of the
 * job (the runs table of the shared state). Baseline: the configured bound, lease + poll. Target: p99 <= 15 s.
 *
 * The orders job runs every minute. A leader elected before the minute's fire time waits for it, so the signal is
 * sent late in a minute (second 52 plus a random point of the renewal cycle): the fire time passes while no one
 * leads, and the new leader runs the missed job at once (its catch-up), which is what the run figure times.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { openDemoErp } from '../connectors/sql/demo-erp/index.js';
import { DEFAULT_LEASE_MS, DEFAULT_POLL_INTERVAL_MS, failoverBoundMs } from '../src/ha/index.js';
import { buildDaemon } from './lib/daemon-build.js';
import { startDaemonProcess, type DaemonProcess } from './lib/daemon-process.js';
import { check, measured, notMeasured } from './lib/result.js';
import { startSandboxProcess, type SandboxProcess } from './lib/sandbox-process.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { formatNumber, meets, summarize } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const GOAL_MS = 15_000;
const JOB = 'orders';
/** The second of the minute from which a round's signal is sent (plus up to one renewal interval). */
const SIGNAL_SECOND = 52;
/** How often the standby's /status and the runs table are read while waiting. */
const PROBE_MS = 25;
const RUNS_PROBE_MS = 100;
/** Bounds on waits that should never come near them: a run that hits one fails with what it waited for. */
const START_GUARD_MS = 60_000;
const FIRST_RUN_GUARD_MS = 90_000;
const STEP_DOWN_GUARD_MS = 20_000;

export const failoverDaemon: Benchmark = {
  name: 'failover-daemon',
  title:
    'Failover of whole daemons: leader `supply-sync run` SIGKILLed or SIGSTOPped to the standby leading and finishing a run',
  target: 'p99 <= 15 s',
  run,
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

type Mode = 'SIGKILL' | 'SIGSTOP';
type Role = 'leader' | 'standby';

interface Daemon {
  readonly name: string;
  readonly process: DaemonProcess;
}

function config(dir: string, sandbox: SandboxProcess, stateUrl: string, instance: string): string {
  return JSON.stringify({
    api: { base_url: sandbox.baseUrl, api_key: sandbox.keys.supplier, timeout: '20s' },
    state: { url: stateUrl },
    // Default lease, renewal and poll: what an operator gets.
    ha: { instance },
    server: { host: '127.0.0.1', port: 0 },
    log: { level: 'warn' },
    timezone: 'Asia/Jerusalem',
    connectors: { erp: { type: 'demo-erp', data_dir: join(dir, 'erp'), journal: false } },
    jobs: {
      [JOB]: {
        flow: 'orders',
        connector: 'erp',
        schedule: '* * * * *',
        options: { start_from: new Date(Date.now() - 1_000).toISOString(), page_size: 5, overlap_ms: 60_000 },
      },
    },
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
  });
}

/** Its role as its /status says; null when it does not answer (killed, frozen, busy past a second). */
async function roleOf(daemon: Daemon): Promise<Role | null> {
  try {
    const response = await fetch(`${daemon.process.opsUrl}/status`, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { role?: unknown };
    return body.role === 'leader' || body.role === 'standby' ? body.role : null;
  } catch {
    return null;
  }
}

/** Polls `probe` until it returns a value other than undefined; throws `what` after `guardMs`. */
async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  guardMs: number,
  everyMs: number,
): Promise<T> {
  const deadline = performance.now() + guardMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out after ${guardMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}

async function queryOne<T extends pg.QueryResultRow>(
  url: string,
  sql: string,
  values: unknown[],
): Promise<T | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows[0];
  } finally {
    await client.end();
  }
}

/** The end (epoch ms, the daemon's clock) and outcome of the first run of the job started at or after `since`. */
function firstRunEndedSince(
  url: string,
  since: number,
): Promise<{ endedAt: number; outcome: string } | undefined> {
  return queryOne<{ ended_at: string; outcome: string }>(
    url,
    `SELECT ended_at, outcome FROM runs WHERE job = $1 AND started_at >= $2 AND ended_at IS NOT NULL
       ORDER BY ended_at LIMIT 1`,
    [JOB, since],
  ).then((row) => (row === undefined ? undefined : { endedAt: Number(row.ended_at), outcome: row.outcome }));
}

/** Milliseconds until second `SIGNAL_SECOND` of the minute, plus `jitterMs`; a minute on when that is under `minMs`. */
function waitForSignalPoint(jitterMs: number, minMs: number): number {
  const now = Date.now();
  const minute = now - (now % 60_000);
  let at = minute + SIGNAL_SECOND * 1_000 + jitterMs;
  while (at - now < minMs) at += 60_000;
  return at - now;
}

interface Takeover {
  mode: Mode;
  leadMs: number;
  runMs: number;
  outcome: string;
}

async function measureTakeovers(
  dir: string,
  sandbox: SandboxProcess,
  stateUrl: string,
  launcher: string,
  rounds: number,
  log: (line: string) => void,
): Promise<Takeover[]> {
  const renewIntervalMs = Math.floor(DEFAULT_LEASE_MS / 3);
  const bound = failoverBoundMs({ leaseMs: DEFAULT_LEASE_MS, pollIntervalMs: DEFAULT_POLL_INTERVAL_MS });
  const daemons: Daemon[] = [];
  const spawnDaemon = async (): Promise<Daemon> => {
    const name = `daemon-${daemons.length}`;
    const file = join(dir, `${name}.yaml`);
    await writeFile(file, config(dir, sandbox, stateUrl, name));
    const started = await startDaemonProcess({
      launcher,
      config: file,
      logFile: join(dir, `${name}.log`),
      startTimeoutMs: START_GUARD_MS,
    });
    const daemon = { name, process: started };
    daemons.push(daemon);
    return daemon;
  };
  const hasRole = (daemon: Daemon, role: Role) => async (): Promise<true | undefined> =>
    (await roleOf(daemon)) === role ? true : undefined;
  const takeovers: Takeover[] = [];
  try {
    let leader = await spawnDaemon();
    await until(`${leader.name} to lead`, hasRole(leader, 'leader'), START_GUARD_MS, PROBE_MS);
    let standby = await spawnDaemon();
    await until(`${standby.name} to stand by`, hasRole(standby, 'standby'), START_GUARD_MS, PROBE_MS);
    // A leader with no run in the history gets no catch-up run: the first one must have happened.
    log('  waiting for the first leader to finish a run of the job');
    await until(
      'the first run of the job',
      () => firstRunEndedSince(stateUrl, 0),
      FIRST_RUN_GUARD_MS,
      RUNS_PROBE_MS,
    );
    for (let round = 0; round < rounds; round += 1) {
      const mode: Mode = round % 2 === 0 ? 'SIGKILL' : 'SIGSTOP';
      // Late in the minute, somewhere in the renewal cycle; at least a second after the standby was seen.
      await sleep(waitForSignalPoint(Math.floor(Math.random() * renewIntervalMs), 1_000));
      await until(`${standby.name} to stand by`, hasRole(standby, 'standby'), STEP_DOWN_GUARD_MS, PROBE_MS);
      const signalledAt = Date.now();
      const at = performance.now();
      process.kill(leader.process.pid, mode);
      await until(`${standby.name} to lead`, hasRole(standby, 'leader'), bound + 30_000, PROBE_MS);
      const leadMs = performance.now() - at;
      const first = await until(
        `the first run of ${standby.name}`,
        () => firstRunEndedSince(stateUrl, signalledAt),
        FIRST_RUN_GUARD_MS,
        RUNS_PROBE_MS,
      );
      const runMs = first.endedAt - signalledAt;
      takeovers.push({ mode, leadMs, runMs, outcome: first.outcome });
      log(
        `  round ${round + 1}/${rounds} ${mode}: leads after ${formatNumber(leadMs / 1000)} s, ` +
          `first run ended after ${formatNumber(runMs / 1000)} s (${first.outcome})`,
      );
      const old = leader;
      leader = standby;
      if (mode === 'SIGKILL') {
        await old.process.stop();
        standby = await spawnDaemon();
        continue;
      }
      // Woken after its lease ran out, the old leader must step down and serve as the standby.
      await sleep(Math.max(0, DEFAULT_LEASE_MS + 200 - (performance.now() - at)));
      process.kill(old.process.pid, 'SIGCONT');
      await until(
        `${old.name} to stand by after SIGCONT`,
        hasRole(old, 'standby'),
        STEP_DOWN_GUARD_MS,
        PROBE_MS,
      );
      standby = old;
    }
  } finally {
    for (const daemon of daemons) {
      try {
        process.kill(daemon.process.pid, 'SIGCONT');
      } catch {
        // Already gone.
      }
    }
    await Promise.all(daemons.map((daemon) => daemon.process.stop(15_000)));
  }
  return takeovers;
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  let database: ScratchDatabase;
  try {
    database = await createScratchDatabase('ss_bench_failover_daemon');
  } catch (error) {
    return notMeasured(
      failoverDaemon,
      `PostgreSQL not reachable at PG_URL: ${(error as Error).message}`,
      startedAt,
    );
  }
  const rounds = options.quick ? 2 : 8;
  try {
    const launcher = await buildDaemon();
    const sandbox = await startSandboxProcess();
    try {
      const takeovers = await withTempDir('failover-daemon', async (dir) => {
        // The ERP file both daemons open, created and seeded once before either starts.
        const erp = await openDemoErp(join(dir, 'erp'));
        await erp.driver.close();
        return measureTakeovers(dir, sandbox, database.url, launcher, rounds, options.log);
      });
      return report(takeovers, startedAt);
    } finally {
      await sandbox.close();
    }
  } finally {
    await database.drop();
  }
}

function report(takeovers: readonly Takeover[], startedAt: number): BenchResult {
  const lead = summarize(takeovers.map((t) => t.leadMs));
  const firstRun = summarize(takeovers.map((t) => t.runMs));
  const of = (mode: Mode) => summarize(takeovers.filter((t) => t.mode === mode).map((t) => t.leadMs));
  const kill = of('SIGKILL');
  const stop = of('SIGSTOP');
  const bound = failoverBoundMs({ leaseMs: DEFAULT_LEASE_MS, pollIntervalMs: DEFAULT_POLL_INTERVAL_MS });
  const seconds = (ms: number): string => `${formatNumber(ms / 1000)} s`;
  const outcomes: Record<string, number> = {};
  for (const t of takeovers) outcomes[t.outcome] = (outcomes[t.outcome] ?? 0) + 1;
  return measured({
    name: failoverDaemon.name,
    title: failoverDaemon.title,
    figure: {
      label: `takeover p99 (/status role), ${lead.count} failovers`,
      value: lead.p99 / 1000,
      unit: 's',
    },
    baseline: { label: 'configured bound: lease + poll', value: bound / 1000, unit: 's' },
    checks: [check('p99 <= 15 s', lead.p99 / 1000, 's', meets(lead.p99, '<=', GOAL_MS))],
    details: {
      'takeover p50': seconds(lead.p50),
      'takeover p99': seconds(lead.p99),
      'takeover max': seconds(lead.max),
      'SIGKILL p50 / max': `${seconds(kill.p50)} / ${seconds(kill.max)} (${kill.count})`,
      'SIGSTOP p50 / max': `${seconds(stop.p50)} / ${seconds(stop.max)} (${stop.count})`,
      'first run ended p50 / p99 / max': `${seconds(firstRun.p50)} / ${seconds(firstRun.p99)} / ${seconds(firstRun.max)}`,
      'first run outcomes': JSON.stringify(outcomes),
      'lease / renew / poll': `${seconds(DEFAULT_LEASE_MS)} / ${seconds(Math.floor(DEFAULT_LEASE_MS / 3))} / ${seconds(DEFAULT_POLL_INTERVAL_MS)}`,
    },
    notes: [
      'Ratio: p99 / bound, lower is better; above 1 means a takeover came later than lease + poll.',
      'Takeover: from the signal to the other daemon answering /status with role leader (polled every 25 ms). First run: from the signal to the end of the first run of the orders job started after it (runs table, the daemon clock).',
      `Signals go late in a minute so that the every-minute job falls due while no one leads and the new leader runs it at its election (catch-up); the orders job finds no new orders, so the run is the daemon's fixed cost.`,
      `With ${lead.count} samples (under 100) p99 is the largest takeover, the max.`,
    ],
    startedAt,
  });
}
