/**
 * Journal export: lines per second end to end (pull approved lines, group and balance-check per document, write
 * Hashavshevet import files, mark exported through the API) and the peak RSS of the process running the flow,
 * sampled every 25 ms. Baseline: the same number of lines written to a file with a plain loop, in the same kind
 * of child process. The lines are made by the sandbox's approve_journal_lines action in chunks; seeding stops at
 * a time cap, and the count actually run is the one reported. Three repetitions, each with a fresh sandbox (an
 * export marks the lines, so they cannot be exported twice): the median rate is reported with its range, and the
 * highest peak RSS of the three.
 */
import { fileURLToPath } from 'node:url';
import type { JournalChildArgs, JournalChildResult } from './lib/journal-child.js';
import { check, measured } from './lib/result.js';
import { bundleChild } from './lib/bundle-child.js';
import { runJsonChild } from './lib/run-child.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { seedJournalLines } from './lib/seed.js';
import { meets, perSecond, ratio, spreadOf, spreadText } from './lib/stats.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

const CHILD = fileURLToPath(new URL('./lib/journal-child.ts', import.meta.url));
const MIB = 1024 * 1024;
const DEFAULT_LINES = 1_000_000;
const REPETITIONS = 3;
const TARGET_LINES_PER_SECOND = 40_000;

export const journalExport: Benchmark = {
  name: 'journal-export',
  title: 'Journal export end to end (Hashavshevet files)',
  target: '>= 40,000 lines/s, peak RSS < 256 MB',
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

interface Repetition {
  seeded: number;
  seedMs: number;
  flow: JournalChildResult;
  base: JournalChildResult;
}

/** One repetition: a fresh sandbox, seeded; the flow child, then the baseline child writing as many lines. */
async function repetition(
  settings: JournalExportSettings,
  child: string,
  options: BenchOptions,
): Promise<Repetition> {
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
      const flow = await runJsonChild<JournalChildResult>(child, flowArgs, settings.flowCapMs + 120_000);
      options.log(
        `  flow: ${perSecond(flow.counts['lines_exported'] ?? 0, flow.elapsedMs).toFixed(0)} lines/s; baseline`,
      );
      const base = await runJsonChild<JournalChildResult>(
        child,
        { mode: 'baseline', dir, lines: seeded },
        10 * 60_000,
      );
      return { seeded, seedMs, flow, base };
    });
  } finally {
    await sandbox.close();
  }
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const settings = journalSettings(options.quick);
  // Both children run the bundled JavaScript, as the daemon runs compiled code, without the TypeScript loader.
  const child = await bundleChild(CHILD);
  const reps: Repetition[] = [];
  for (let rep = 1; rep <= REPETITIONS; rep++) {
    options.log(`  repetition ${rep}/${REPETITIONS}`);
    reps.push(await repetition(settings, child, options));
  }
  const exportedOf = (r: Repetition): number => r.flow.counts['lines_exported'] ?? 0;
  const rates = spreadOf(reps.map((r) => perSecond(exportedOf(r), r.flow.elapsedMs)));
  const baselines = spreadOf(
    reps.map((r) => perSecond(r.base.counts['lines_written'] ?? 0, r.base.elapsedMs)),
  );
  const ratios = spreadOf(
    reps.map((r) =>
      ratio(
        perSecond(exportedOf(r), r.flow.elapsedMs),
        perSecond(r.base.counts['lines_written'] ?? 0, r.base.elapsedMs),
      ),
    ),
  );
  const peaks = reps.map((r) => r.flow.peakRssBytes / MIB);
  const peakMiB = Math.max(...peaks);
  const seeded = Math.min(...reps.map((r) => r.seeded));
  const allOk = reps.every((r) => r.flow.outcome === 'ok' && exportedOf(r) >= r.seeded);
  const last = reps[reps.length - 1];
  const notes = [
    `${REPETITIONS} repetitions, each with a fresh sandbox seeded with the same number of lines (an export marks the lines, so a second run over them would have nothing to do); the figure is the median, with the range and the spread (max - min) / median; the peak RSS checked is the highest of the repetitions.`,
    'Each line here is a journal line of the sandbox (the seed lines of the demo buyer plus the approved ones); documents are balanced groups of lines, one Hashavshevet batch holds at most 5,000 lines, and each batch is marked exported with POST /accounting/exports while the next one is written (at most one export call in flight).',
  ];
  if (!allOk) {
    notes.push(
      `A flow did not finish within its ${settings.flowCapMs / 1000} s cap or did not export every line (outcomes: ${reps.map((r) => r.flow.outcome).join(', ')}); the rate is that of the lines it exported by then.`,
    );
  }
  notes.push(
    'Peak RSS is that of the child process running the flow: the child is bundled to JavaScript with esbuild and run by plain node, as the daemon runs compiled code (compare the baseline child, the same bundle writing a file with a plain loop).',
    'Where the time goes: bench/profiles.md (bench/profile-journal.ts).',
  );
  if (settings.chosenBy === 'BENCH_JOURNAL_LINES' && settings.lines < DEFAULT_LINES) {
    notes.push(
      `Run with BENCH_JOURNAL_LINES=${settings.lines} instead of the default ${DEFAULT_LINES.toLocaleString('en-US')} lines.`,
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
    figure: { label: `journal-export flow, median of ${REPETITIONS}`, value: rates.median, unit: 'lines/s' },
    baseline: {
      label: `plain loop writing lines to a file, median of ${REPETITIONS}`,
      value: baselines.median,
      unit: 'lines/s',
    },
    ratio: ratios.median,
    checks: [
      check(
        `>= ${TARGET_LINES_PER_SECOND.toLocaleString('en-US')} lines/s`,
        rates.median,
        'lines/s',
        meets(rates.median, '>=', TARGET_LINES_PER_SECOND),
      ),
      check('peak RSS < 256 MB (highest of the repetitions)', peakMiB, 'MiB', meets(peakMiB, '<', 256)),
      check('outcome ok, every approved line exported, every repetition', seeded, 'lines', allOk),
    ],
    details: {
      'lines approved / exported per repetition': reps
        .map((r) => `${r.seeded} / ${exportedOf(r)}`)
        .join(', '),
      'flow lines/s, median (range, spread)': spreadText(rates),
      'baseline lines/s, median (range, spread)': spreadText(baselines),
      'ratio, median (range, spread)': spreadText(ratios),
      'flow time per repetition (s)': reps.map((r) => (r.flow.elapsedMs / 1000).toFixed(1)).join(', '),
      'peak RSS of the flow process per repetition (MiB)': peaks.map((p) => p.toFixed(0)).join(', '),
      'baseline peak RSS (MiB)': (last?.base.peakRssBytes ?? Number.NaN) / MIB,
      'flow outcomes': reps.map((r) => r.flow.outcome).join(', '),
      'flow counts (last repetition)': JSON.stringify(last?.flow.counts ?? {}),
      'seeding time per repetition (s)': reps.map((r) => (r.seedMs / 1000).toFixed(1)).join(', '),
    },
    notes,
  });
}
