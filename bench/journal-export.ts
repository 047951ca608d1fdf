/**
 * Journal export: lines per second end to end (pull approved lines, group and balance-check per document, write
 * Hashavshevet import files, mark exported through the API) and the peak RSS of the process running the flow,
 * sampled every 25 ms. Baseline: the same number of lines written to a file with a plain loop, in the same kind
 * of child process. The lines are made by the sandbox's approve_journal_lines action in chunks; seeding stops at
 * a time cap, and the count actually run is the one reported.
 */
import { fileURLToPath } from 'node:url';
import type { JournalChildArgs, JournalChildResult } from './lib/journal-child.js';
import { check, measured } from './lib/result.js';
import { bundleChild } from './lib/bundle-child.js';
import { runJsonChild } from './lib/run-child.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { seedJournalLines } from './lib/seed.js';
import { meets, perSecond, ratio } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const CHILD = fileURLToPath(new URL('./lib/journal-child.ts', import.meta.url));
const MIB = 1024 * 1024;
const DEFAULT_LINES = 1_000_000;

export const journalExport: Benchmark = {
  name: 'journal-export',
  title: 'Journal export end to end (Hashavshevet files)',
  target: '>= 20,000 lines/s, peak RSS < 256 MB',
  run,
};

export interface JournalExportSettings {
  lines: number;
  chosenBy: 'default' | 'quick' | 'BENCH_JOURNAL_LINES';
  /** Seeding stops here even short of `lines`; the count seeded is the one run and reported. */
  seedCapMs: number;
  /** The flow is aborted after this long and ends "partial"; the lines exported by then are reported. */
  flowCapMs: number;
}

export function journalSettings(quick: boolean, env = process.env): JournalExportSettings {
  const fromEnv = Number(env['BENCH_JOURNAL_LINES']);
  const chosen = Number.isInteger(fromEnv) && fromEnv >= 3;
  return {
    lines: chosen ? fromEnv : quick ? 5_000 : DEFAULT_LINES,
    chosenBy: chosen ? 'BENCH_JOURNAL_LINES' : quick ? 'quick' : 'default',
    seedCapMs: quick ? 30_000 : 240_000,
    flowCapMs: quick ? 60_000 : 600_000,
  };
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const settings = journalSettings(options.quick);
  const sandbox = await startSandboxProcess();
  try {
    return await withTempDir('journal', async (dir) => {
      options.log(`  seeding up to ${settings.lines} approved lines (cap ${settings.seedCapMs / 1000} s)`);
      const seedStart = performance.now();
      let seeded = 0;
      const chunk = Math.min(20_000, settings.lines);
      while (seeded < settings.lines && performance.now() - seedStart < settings.seedCapMs) {
        const size = Math.min(chunk, settings.lines - seeded);
        await seedJournalLines(sandbox, size, size);
        seeded += size;
      }
      const seedMs = performance.now() - seedStart;
      options.log(`  seeded ${seeded} lines in ${(seedMs / 1000).toFixed(1)} s; running the flow`);

      const flowArgs: JournalChildArgs = {
        mode: 'flow',
        dir,
        lines: seeded,
        baseUrl: sandbox.baseUrl,
        apiKey: sandbox.keys.buyer,
        budgetMs: settings.flowCapMs,
        capMs: settings.flowCapMs,
      };
      // Both children run the bundled JavaScript, as the daemon runs compiled code, without the TypeScript loader.
      const child = await bundleChild(CHILD);
      const flow = await runJsonChild<JournalChildResult>(child, flowArgs, settings.flowCapMs + 120_000);
      options.log('  baseline: plain loop writing the same number of lines');
      const base = await runJsonChild<JournalChildResult>(
        child,
        { mode: 'baseline', dir, lines: seeded },
        10 * 60_000,
      );

      const exported = flow.counts['lines_exported'] ?? 0;
      const figure = perSecond(exported, flow.elapsedMs);
      const baseline = perSecond(base.counts['lines_written'] ?? 0, base.elapsedMs);
      const peakMiB = flow.peakRssBytes / MIB;
      const notes = [
        'Each line here is a journal line of the sandbox (the seed lines of the demo buyer plus the approved ones); documents are balanced groups of lines, one Hashavshevet batch holds at most 5,000 lines, and each batch is marked exported with POST /accounting/exports while the next one is written (at most one export call in flight).',
      ];
      if (flow.outcome !== 'ok') {
        notes.push(
          `The flow did not finish within its ${settings.flowCapMs / 1000} s cap and ended "${flow.outcome}"; the rate is that of the lines it exported by then.`,
        );
      }
      notes.push(
        'Peak RSS is that of the child process running the flow: the child is bundled to JavaScript with esbuild and run by plain node, as the daemon runs compiled code (compare the baseline child, the same bundle writing a file with a plain loop).',
      );
      if (settings.chosenBy === 'BENCH_JOURNAL_LINES' && settings.lines < DEFAULT_LINES) {
        notes.push(
          `Run with BENCH_JOURNAL_LINES=${settings.lines} instead of the default ${DEFAULT_LINES.toLocaleString('en-US')} lines, which does not finish in reasonable time on this machine: the sandbox filters and pages over every journal line on each list request, so the cost of a page grows with the number of lines and the whole pull grows with its square.`,
        );
      }
      if (seeded < settings.lines) {
        notes.push(
          `Not the full ${settings.lines.toLocaleString('en-US')} lines: seeding through the sandbox's control plane reached ${seeded.toLocaleString('en-US')} lines within its ${settings.seedCapMs / 1000} s cap on this machine. Set BENCH_JOURNAL_LINES to choose the count.`,
        );
      }
      return measured({
        name: journalExport.name,
        title: `${journalExport.title}, ${seeded.toLocaleString('en-US')} lines`,
        startedAt,
        figure: { label: 'journal-export flow', value: figure, unit: 'lines/s' },
        baseline: { label: 'plain loop writing lines to a file', value: baseline, unit: 'lines/s' },
        ratio: ratio(figure, baseline),
        checks: [
          check('>= 20,000 lines/s', figure, 'lines/s', meets(figure, '>=', 20_000)),
          check('peak RSS < 256 MB', peakMiB, 'MiB', meets(peakMiB, '<', 256)),
          check(
            'outcome ok, every approved line exported',
            exported,
            'lines',
            flow.outcome === 'ok' && exported >= seeded,
          ),
        ],
        details: {
          'lines approved by the benchmark / exported by the flow': `${seeded} / ${exported}`,
          'flow outcome': flow.outcome,
          'flow counts': JSON.stringify(flow.counts),
          'flow time (s)': flow.elapsedMs / 1000,
          'peak RSS of the flow process (MiB)': peakMiB,
          'baseline peak RSS (MiB)': base.peakRssBytes / MIB,
          'seeding time (s)': seedMs / 1000,
        },
        notes,
      });
    });
  } finally {
    await sandbox.close();
  }
}
