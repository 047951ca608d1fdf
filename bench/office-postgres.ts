/**
 * An accounting office of 300 companies on PostgreSQL state in one process: `supply-sync run` (compiled, in its own
 * process) on an office config whose file sets `state.url` (the office's own database) and whose companies each
 * have a database of their own, as several office processes share them; `--no-catch-up`, so nothing runs while it
 * is measured. Each company holds three connections (its state, its inbox's own session, its lease), more than a
 * default server allows (max_connections 100), so the databases are on a PostgreSQL server of the benchmark's own
 * (bench/lib/private-postgres.ts). Figures: the start, resident memory, threads, idle CPU and the connections held.
 * Baseline: the same companies on state files in the same run; the ratio is the PostgreSQL office's resident memory
 * to the file office's (lower is better).
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { buildDaemon } from './lib/daemon-build.js';
import { startPrivatePostgres, type PrivatePostgres } from './lib/private-postgres.js';
import { check, measured, notMeasured } from './lib/result.js';
import { startSandboxProcess, type SandboxProcess } from './lib/sandbox-process.js';
import { formatNumber } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';
import { withClient } from '../test/support/pg-client.js';
import {
  COMPANIES,
  IDLE_MS,
  measureIdle,
  QUICK_COMPANIES,
  QUICK_IDLE_MS,
  writeOffice,
  type Idle,
} from './office.js';

export const officePostgres: Benchmark = {
  name: 'office-postgres',
  title: 'An office of 300 companies on PostgreSQL state in one process: start and idle',
  target: 'start < 10 s, idle < 400 MB RSS and < 3 % of a core',
  run,
};

/** Connections each company holds on the server: its state, its inbox's own session, its lease. */
const CONNECTIONS_PER_COMPANY = 3;

/** Databases for the office and `count` companies on `server`. */
async function createDatabases(
  server: string,
  count: number,
): Promise<{ office: string; company: (n: string) => string }> {
  const names = ['office', ...Array.from({ length: count }, (_, i) => `c${String(i + 1).padStart(3, '0')}`)];
  const urlOf = (name: string): string => {
    const url = new URL(server);
    url.pathname = `/${name}`;
    return url.toString();
  };
  await withClient(server, async (client) => {
    for (const name of names) await client.query(`CREATE DATABASE ${name}`);
  });
  return { office: urlOf('office'), company: urlOf };
}

interface Measured extends Idle {
  connections: number;
  /** On PostgreSQL: the first start, on new databases (it creates every company's tables); then it is restarted. */
  firstStartMs?: number;
}

async function measureOffice(
  options: BenchOptions & { launcher: string; sandbox: SandboxProcess; dir: string; count: number },
  server: PrivatePostgres | undefined,
): Promise<Measured> {
  const idleMs = options.quick ? QUICK_IDLE_MS : IDLE_MS;
  const dir = join(options.dir, server === undefined ? 'files' : 'postgres');
  await mkdir(dir, { recursive: true });
  const databases = server === undefined ? undefined : await createDatabases(server.url, options.count);
  const config = await writeOffice(dir, options.sandbox, options.count, databases);
  const where = server === undefined ? 'state files' : 'PostgreSQL';
  options.log(`  ${options.count} companies on ${where}: start, then ${idleMs / 1000} s idle`);
  let connections = 0;
  const countConnections = async (): Promise<void> => {
    if (server === undefined) return;
    connections = await withClient(server.url, async (client) =>
      Number(
        (await client.query(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname <> 'postgres'`)).rows[0]
          ?.n,
      ),
    );
  };
  const log = join(dir, 'office.log');
  if (server === undefined) {
    return { ...(await measureIdle(options.launcher, config, log, [], idleMs)), connections };
  }
  // The first start creates the companies' tables; the figures are those of the start after it (a restart), as an
  // office starts every day after its first.
  const first = await measureIdle(options.launcher, config, log, [], 1_000);
  options.log(`  restarted on the same databases: start, then ${idleMs / 1000} s idle`);
  const idle = await measureIdle(options.launcher, config, log, [], idleMs, countConnections);
  return { ...idle, connections, firstStartMs: first.startMs };
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const count = options.quick ? QUICK_COMPANIES : COMPANIES;
  return withTempDir('office-postgres', async (dir) => {
    let server: PrivatePostgres;
    try {
      server = await startPrivatePostgres(CONNECTIONS_PER_COMPANY * count + 50);
    } catch (error) {
      return notMeasured(
        officePostgres,
        `no PostgreSQL server of its own: ${(error as Error).message}`,
        startedAt,
      );
    }
    const sandbox = await startSandboxProcess();
    try {
      options.log('  compiling the daemon (esbuild, one file per module, as npm run release does)');
      const launcher = await buildDaemon();
      const context = { ...options, launcher, sandbox, dir, count };
      const postgres = await measureOffice(context, server);
      const files = await measureOffice(context, undefined);
      return result(startedAt, count, postgres, files, options.quick);
    } finally {
      await sandbox.close();
      server.stop();
    }
  });
}

function result(
  startedAt: number,
  count: number,
  postgres: Measured,
  files: Measured,
  quick: boolean,
): BenchResult {
  const figures = (label: string, s: Measured): Record<string, string> => ({
    [`${label}: start (s)`]: formatNumber(s.startMs / 1000),
    [`${label}: RSS (MiB)`]: formatNumber(s.rssMb),
    [`${label}: threads`]: String(s.threads),
    [`${label}: idle CPU (% of a core)`]: formatNumber(s.cpuPercent),
  });
  return measured({
    name: officePostgres.name,
    title: officePostgres.title,
    figure: { label: `RSS of the office of ${count} on PostgreSQL`, value: postgres.rssMb, unit: 'MiB' },
    baseline: { label: 'RSS of the same office on state files', value: files.rssMb, unit: 'MiB' },
    checks: [
      check('start < 10 s (a restart)', postgres.startMs / 1000, 's', postgres.startMs < 10_000),
      check('idle RSS < 400 MB', postgres.rssMb, 'MiB', postgres.rssMb < 400),
      check('idle CPU < 3 % of a core', postgres.cpuPercent, '%', postgres.cpuPercent < 3),
    ],
    details: {
      ...figures(`${count} companies on PostgreSQL`, postgres),
      ...figures(`${count} companies on state files`, files),
      'connections the office held on the server': postgres.connections,
      'first start on PostgreSQL, new databases (s)': formatNumber((postgres.firstStartMs ?? NaN) / 1000),
    },
    notes: [
      `Each company holds ${CONNECTIONS_PER_COMPANY} connections, so the server's max_connections must allow ${CONNECTIONS_PER_COMPANY} per company per office process; the benchmark's own server allows ${CONNECTIONS_PER_COMPANY * count + 50}. Lower ratio is better.`,
      ...(quick ? [`--quick: ${count} companies, not 300; figures are indicative only`] : []),
    ],
    startedAt,
  });
}
