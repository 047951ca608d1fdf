/**
 * `npm run bench [-- --only <name>[,<name>]] [-- --quick] [-- --note "<run conditions>"]`: runs each benchmark in
 * turn and writes bench/results.md and bench/out/results.json. Every figure comes with a baseline measured in
 * the same run. Names: sandbox-serve, webhook-ingest, webhook-daemon, pull, journal-export, catalog, rate-limit,
 * latency, state-backends, failover, failover-daemon, control-api, office, office-night, office-postgres.
 */
import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, UsageError, type BenchArgs } from './lib/args.js';
import { machineInfo } from './lib/machine.js';
import { notMeasured } from './lib/result.js';
import { writeReport } from './lib/report.js';
import type { BenchResult } from './lib/types.js';
import { benchmarks } from './registry.js';

let args: BenchArgs;
try {
  args = parseBenchArgs(
    process.argv.slice(2),
    benchmarks.map((bench) => bench.name),
  );
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);
const machine = machineInfo();
const results: BenchResult[] = [];
for (const bench of benchmarks) {
  if (args.only !== null && !args.only.includes(bench.name)) continue;
  log(`${bench.name}: ${bench.title}`);
  const startedAt = performance.now();
  try {
    results.push(await bench.run({ quick: args.quick, log }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`  failed: ${message}`);
    results.push(
      notMeasured(bench, `the run failed: ${message.replace(/\s+/g, ' ').slice(0, 300)}`, startedAt),
    );
  }
  const last = results[results.length - 1];
  if (last?.status === 'measured') log(`  ratio ${last.ratio.toFixed(3)}`);
}

const markdownPath = args.out ?? fileURLToPath(new URL('./results.md', import.meta.url));
const jsonPath = args.jsonOut ?? fileURLToPath(new URL('./out/results.json', import.meta.url));
const loadAtEnd = Math.round((loadavg()[0] ?? 0) * 100) / 100;
// The profile summaries (where the time goes, before and after a change) travel with the figures they explain.
const profilesPath = fileURLToPath(new URL('./profiles.md', import.meta.url));
const profiled = ['pull', 'journal-export', 'webhook-daemon'].some(
  (name) => args.only === null || args.only.includes(name),
);
const appendix = profiled && existsSync(profilesPath) ? readFileSync(profilesPath, 'utf8') : undefined;
await writeReport(
  {
    machine,
    quick: args.quick,
    only: args.only,
    results,
    conditions: [...args.notes, `Load average (1 min) at the end: ${loadAtEnd}`],
    ...(appendix === undefined ? {} : { appendix }),
  },
  markdownPath,
  jsonPath,
);
log(`wrote ${markdownPath} and ${jsonPath}`);
