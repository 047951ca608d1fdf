/**
 * Child-process entry for the journal-export benchmark, so the sampled RSS is that of the process running the
 * flow and nothing else. Mode "flow": the journal-export job with the Hashavshevet writer against the parent's
 * sandbox. Mode "baseline": the same number of lines written to a file with a plain loop.
 * Prints one JSON line with the outcome, counts, elapsed time and peak RSS.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { HashavshevetWriter, hashavshevetConfigSchema } from '../../connectors/hashavshevet/index.js';
import { createJournalExportJob, journalExportOptionsSchema } from '../../src/flows/journal-export/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { benchClient, jobContext } from './harness.js';
import { startProfiler } from './cpu-profile.js';
import { sampleRss } from './rss.js';

export interface JournalChildArgs {
  mode: 'flow' | 'baseline';
  dir: string;
  lines: number;
  baseUrl?: string;
  apiKey?: string;
  budgetMs?: number;
  /** Abort the run after this long (the job then ends "partial" with what it exported so far). */
  capMs?: number;
  /** Write a CPU profile of the flow (bench/profile-journal.ts) to this file. */
  profileFile?: string;
}

export interface JournalChildResult {
  outcome: string;
  counts: Record<string, number>;
  elapsedMs: number;
  peakRssBytes: number;
  rssSamples: number;
  /** CPU time of the child during the run (user and system), in milliseconds. */
  cpuUserMs: number;
  cpuSystemMs: number;
}

async function baseline(args: JournalChildArgs): Promise<Record<string, number>> {
  const out = createWriteStream(join(args.dir, 'baseline.txt'));
  for (let i = 0; i < args.lines; i++) {
    const line = `${i},2026-11-01,61000,22000,${(i % 100_000) / 100},Bench line ${i}\r\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { lines_written: args.lines };
}

async function flow(args: JournalChildArgs): Promise<{ outcome: string; counts: Record<string, number> }> {
  if (args.baseUrl === undefined || args.apiKey === undefined)
    throw new Error('flow mode needs baseUrl and apiKey');
  const state = openStateStore({ file: join(args.dir, 'state.db'), clock: systemClock });
  const api = benchClient(args.baseUrl, args.apiKey);
  try {
    const writer = new HashavshevetWriter(
      hashavshevetConfigSchema.parse({
        import_dir: join(args.dir, 'import'),
        long_references: 'last_digits',
      }),
      'books',
    );
    const job = createJournalExportJob({
      name: 'journal-bench',
      api,
      writer,
      connectorName: 'books',
      options: journalExportOptionsSchema.parse({}),
    });
    const stop = new AbortController();
    const timer = setTimeout(
      () => stop.abort(new Error('benchmark time cap reached')),
      args.capMs ?? 30 * 60_000,
    );
    const result = await job.run(jobContext(state, args.budgetMs ?? 30 * 60_000, stop.signal));
    clearTimeout(timer);
    return { outcome: result.outcome, counts: result.counts };
  } finally {
    await api.close();
    state.close();
  }
}

const args = JSON.parse(process.argv[2] ?? '{}') as JournalChildArgs;
const sampler = sampleRss(25);
const profiler = args.profileFile === undefined ? null : await startProfiler();
const cpuBefore = process.cpuUsage();
const started = performance.now();
const done = args.mode === 'flow' ? await flow(args) : { outcome: 'ok', counts: await baseline(args) };
const elapsedMs = performance.now() - started;
const cpu = process.cpuUsage(cpuBefore);
if (profiler !== null && args.profileFile !== undefined) await profiler.stop(args.profileFile);
const rss = sampler.stop();
const result: JournalChildResult = {
  outcome: done.outcome,
  counts: done.counts,
  elapsedMs,
  peakRssBytes: rss.peakBytes,
  rssSamples: rss.samples,
  cpuUserMs: cpu.user / 1000,
  cpuSystemMs: cpu.system / 1000,
};
process.stdout.write(`${JSON.stringify(result)}\n`);
