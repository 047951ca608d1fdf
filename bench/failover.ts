/**
 * Failover time at the default HA settings (lease 10 s, poll 2 s: what an operator gets). Two elector child processes
 * (the test suite's, test/ha/support) share a throw-away PostgreSQL database; the leader commits fenced writes while
 * it leads. The leader is killed (SIGKILL) and frozen (SIGSTOP for longer than the lease, then SIGCONT) in turn, and
 * each takeover is timed from the signal to the standby's "elected" line. Baseline: the configured bound, lease +
 * poll, which a takeover should stay under. Target: p99 <= 15 s, the failover goal of the HA issue.
 */
import { DEFAULT_LEASE_MS, DEFAULT_POLL_INTERVAL_MS, failoverBoundMs } from '../src/ha/index.js';
import { ChildElector, type ChildEvent, type ChildSettings } from '../test/ha/support/child-electors.js';
import { check, measured, notMeasured } from './lib/result.js';
import { createScratchDatabase, type ScratchDatabase } from './lib/scratch-database.js';
import { formatNumber, meets, summarize } from './lib/stats.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const GOAL_MS = 15_000;

export const failover: Benchmark = {
  name: 'failover',
  title: 'Failover: leader SIGKILLed or SIGSTOPped to the standby leading (default lease and poll)',
  target: 'p99 <= 15 s',
  run,
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const isElected = (event: ChildEvent): boolean => event.event === 'elected';

// The tables the child's fenced writer commits to (as in test/ha/kill9-failover.test.ts).
const WRITER_TABLES = `
  CREATE TABLE ha_commit_order (id int PRIMARY KEY, n bigint NOT NULL);
  INSERT INTO ha_commit_order VALUES (1, 0);
  CREATE TABLE ha_writes (n bigint PRIMARY KEY, epoch bigint NOT NULL, instance text NOT NULL);`;

/** Takeover times in ms, SIGKILL and SIGSTOP in turn, `rounds` of them. */
async function measureTakeovers(
  settings: ChildSettings,
  rounds: number,
  log: (line: string) => void,
): Promise<Record<'SIGKILL' | 'SIGSTOP', number[]>> {
  const bound = failoverBoundMs(settings);
  const children: ChildElector[] = [];
  const spawnChild = async (): Promise<ChildElector> => {
    const child = new ChildElector(`node-${children.length}`, settings);
    children.push(child);
    await child.next('start', (event) => event.event === 'started', 30_000);
    return child;
  };
  const takeovers: Record<'SIGKILL' | 'SIGSTOP', number[]> = { SIGKILL: [], SIGSTOP: [] };
  try {
    let leader = await spawnChild();
    await leader.next('first election', isElected, 30_000);
    let standby = await spawnChild();
    for (let round = 0; round < rounds; round += 1) {
      // Somewhere in the renewal cycle rather than right after a renewal.
      await sleep(Math.floor(Math.random() * settings.renewIntervalMs));
      const mode = round % 2 === 0 ? 'SIGKILL' : 'SIGSTOP';
      const standbyMark = standby.events.length;
      const leaderMark = leader.events.length;
      const at = performance.now();
      leader.signal(mode);
      const elected = await standby.next('takeover', isElected, bound + 15_000, standbyMark);
      const takeover = elected.receivedAt - at;
      takeovers[mode].push(takeover);
      log(`  round ${round + 1}/${rounds} ${mode}: ${formatNumber(takeover / 1000)} s`);
      if (mode === 'SIGKILL') {
        await leader.exited();
        leader = standby;
        standby = await spawnChild();
        continue;
      }
      // Woken after the lease ran out, the old leader must step down before it serves as the standby.
      await sleep(Math.max(0, settings.leaseMs + 200 - (performance.now() - at)));
      leader.signal('SIGCONT');
      await leader.next('step-down', (event) => event.event === 'lost', 15_000, leaderMark);
      [leader, standby] = [standby, leader];
    }
  } finally {
    await Promise.all(children.map((child) => child.end()));
  }
  return takeovers;
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  let database: ScratchDatabase;
  try {
    database = await createScratchDatabase('ss_bench_failover');
  } catch (error) {
    return notMeasured(
      failover,
      `PostgreSQL not reachable at PG_URL: ${(error as Error).message}`,
      startedAt,
    );
  }
  const settings: ChildSettings = {
    url: database.url,
    leaseMs: DEFAULT_LEASE_MS,
    // The daemon's default renewal: a third of the lease (haSettings).
    renewIntervalMs: Math.floor(DEFAULT_LEASE_MS / 3),
    pollIntervalMs: DEFAULT_POLL_INTERVAL_MS,
    writeEveryMs: 300,
    holdMs: 250,
  };
  const rounds = options.quick ? 4 : 8;
  try {
    await database.run(WRITER_TABLES);
    const takeovers = await measureTakeovers(settings, rounds, options.log);
    const all = summarize([...takeovers.SIGKILL, ...takeovers.SIGSTOP]);
    const kill = summarize(takeovers.SIGKILL);
    const stop = summarize(takeovers.SIGSTOP);
    const bound = failoverBoundMs(settings);
    const seconds = (ms: number): string => `${formatNumber(ms / 1000)} s`;
    return measured({
      name: failover.name,
      title: failover.title,
      figure: { label: `takeover p99, ${all.count} failovers`, value: all.p99 / 1000, unit: 's' },
      baseline: { label: 'configured bound: lease + poll', value: bound / 1000, unit: 's' },
      checks: [check('p99 <= 15 s', all.p99 / 1000, 's', meets(all.p99, '<=', GOAL_MS))],
      details: {
        'takeover p50': seconds(all.p50),
        'takeover p99': seconds(all.p99),
        'takeover max': seconds(all.max),
        'SIGKILL p50 / max': `${seconds(kill.p50)} / ${seconds(kill.max)} (${kill.count})`,
        'SIGSTOP p50 / max': `${seconds(stop.p50)} / ${seconds(stop.max)} (${stop.count})`,
        'lease / renew / poll': `${seconds(settings.leaseMs)} / ${seconds(settings.renewIntervalMs)} / ${seconds(settings.pollIntervalMs)}`,
      },
      notes: [
        'Ratio: p99 / bound, lower is better; above 1 means a takeover came later than lease + poll.',
        'Timed from the signal to the standby elector announcing itself: election only, not a resumed job.',
        `With ${all.count} samples (under 100) p99 is the largest takeover, the max.`,
      ],
      startedAt,
    });
  } finally {
    await database.drop();
  }
}
