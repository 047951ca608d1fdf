/**
 * An accounting office of 300 companies in one process: `supply-sync run` (compiled, in its own process) on an
 * office config whose companies are 300 sandbox buyer accounts, each with its own key, state file and Hashavshevet
 * folder and a nightly journal job (`--no-catch-up`: nothing runs while it is measured). Figures: the time from the
 * command to "office is running", the resident memory after the start, and the CPU the idle office uses over 20 s.
 * Baseline: one company of the same office run as a daemon of its own (`--company`), measured the same way in the
 * same run; the ratio is the office's idle CPU to 300 such daemons' (lower is better).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildDaemon } from './lib/daemon-build.js';
import { startDaemonProcess, type DaemonProcess } from './lib/daemon-process.js';
import { processCpuMs } from './lib/process-cpu.js';
import { check, measured } from './lib/result.js';
import { startSandboxProcess, type SandboxProcess } from './lib/sandbox-process.js';
import { formatNumber } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';
import { journalOfficeYaml } from '../test/support/office.js';

export const office: Benchmark = {
  name: 'office',
  title: 'An office of 300 companies in one process: start and idle',
  target: 'start < 10 s, idle < 400 MB RSS and < 3 % of a core',
  run,
};

/** The office's size and its idle window, full and --quick (office-postgres.ts measures the same). */
export const COMPANIES = 300;
export const QUICK_COMPANIES = 30;
export const IDLE_MS = 20_000;
export const QUICK_IDLE_MS = 5_000;
/** After "running", before the idle window: the companies' first connector checks settle. */
const SETTLE_MS = 3_000;

export interface Idle {
  startMs: number;
  rssMb: number;
  cpuPercent: number;
  /** The process's threads after the start (the main thread, libuv's and V8's, workers). */
  threads: number;
}

/** Where the office keeps its state: its files by default, or PostgreSQL databases (the office's, each company's). */
export interface OfficeStateUrls {
  readonly office: string;
  readonly company: (name: string) => string;
}

export async function writeOffice(
  dir: string,
  sandbox: SandboxProcess,
  count: number,
  urls?: OfficeStateUrls,
): Promise<string> {
  const officeFile = join(dir, 'office.yaml');
  const shared = urls === undefined ? [] : [`  url: ${urls.office}`, 'ha:', '  instance: bench'];
  await writeFile(
    officeFile,
    journalOfficeYaml(sandbox.baseUrl, [
      ...shared,
      'log:',
      '  level: warn',
      'companies:',
      '  dir: companies.d',
    ]),
  );
  await mkdir(join(dir, 'companies.d'), { recursive: true });
  for (let i = 1; i <= count; i++) {
    const name = `c${String(i).padStart(3, '0')}`;
    const account = await sandbox.control.createAccount({
      type: 'buyer',
      name: `client ${name}`,
      plan: 'Pro',
    });
    const state = urls === undefined ? '' : `state:\n  url: ${urls.company(name)}\n`;
    await writeFile(
      join(dir, 'companies.d', `${name}.yaml`),
      `api:\n  api_key: ${account.key}\n${state}connectors:\n  books:\n    import_dir: books/${name}\n`,
    );
  }
  return officeFile;
}

async function memoryAndThreads(pid: number): Promise<{ rssMb: number; threads: number }> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(text)?.[1]);
  return { rssMb: kb / 1024, threads: Number(/^Threads:\s+(\d+)$/m.exec(text)?.[1]) };
}

export async function measureIdle(
  launcher: string,
  config: string,
  logFile: string,
  cliArgs: readonly string[],
  idleMs: number,
  /** Called at the end of the idle window, while the office still runs. */
  atIdle?: () => Promise<void>,
): Promise<Idle> {
  const started = performance.now();
  const daemon: DaemonProcess = await startDaemonProcess({
    launcher,
    config,
    logFile,
    cliArgs: ['--no-catch-up', ...cliArgs],
    startTimeoutMs: 120_000,
  });
  try {
    const startMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const before = processCpuMs(daemon.pid);
    await new Promise((resolve) => setTimeout(resolve, idleMs));
    const after = processCpuMs(daemon.pid);
    const cpuPercent = before === undefined || after === undefined ? NaN : ((after - before) / idleMs) * 100;
    await atIdle?.();
    return { startMs, cpuPercent, ...(await memoryAndThreads(daemon.pid)) };
  } finally {
    await daemon.stop();
  }
}

async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const count = options.quick ? QUICK_COMPANIES : COMPANIES;
  const idleMs = options.quick ? QUICK_IDLE_MS : IDLE_MS;
  return withTempDir('supply-sync-bench-office-', async (dir) => {
    const sandbox = await startSandboxProcess();
    try {
      options.log(`  creating ${count} buyer accounts in the sandbox, one company file each`);
      const config = await writeOffice(dir, sandbox, count);
      options.log('  compiling the daemon (esbuild, one file per module, as npm run release does)');
      const launcher = await buildDaemon();
      options.log(`  the office of ${count} companies: start, then ${idleMs / 1000} s idle`);
      const whole = await measureIdle(launcher, config, join(dir, 'office.log'), [], idleMs);
      options.log('  one company as a daemon of its own: start, then idle');
      const one = await measureIdle(launcher, config, join(dir, 'one.log'), ['--company', 'c001'], idleMs);
      return result(startedAt, count, whole, one, options.quick);
    } finally {
      await sandbox.close();
    }
  });
}

function result(startedAt: number, count: number, whole: Idle, one: Idle, quick: boolean): BenchResult {
  const scaled = one.cpuPercent * count;
  return measured({
    name: office.name,
    title: office.title,
    figure: { label: `idle CPU of the office of ${count}`, value: whole.cpuPercent, unit: '% of a core' },
    baseline: {
      label: `idle CPU of ${count} daemons of one company each`,
      value: scaled,
      unit: '% of a core',
    },
    checks: [
      check('start < 10 s', whole.startMs / 1000, 's', whole.startMs < 10_000),
      check('idle RSS < 400 MB', whole.rssMb, 'MiB', whole.rssMb < 400),
      check('idle CPU < 3 % of a core', whole.cpuPercent, '%', whole.cpuPercent < 3),
    ],
    details: {
      companies: count,
      'office start (s)': formatNumber(whole.startMs / 1000),
      'office RSS (MiB)': formatNumber(whole.rssMb),
      'office idle CPU (% of a core)': formatNumber(whole.cpuPercent),
      'one company start (s)': formatNumber(one.startMs / 1000),
      'one company RSS (MiB)': formatNumber(one.rssMb),
      'one company idle CPU (% of a core)': formatNumber(one.cpuPercent),
    },
    notes: [
      'Lower ratio is better: the office idle against as many daemons of one company each, measured one and scaled.',
      ...(quick ? [`--quick: ${count} companies, not 300; figures are indicative only`] : []),
    ],
    startedAt,
  });
}
