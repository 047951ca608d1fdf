/**
 * Pull: items per second staged into the state file by the engine's incremental pull (pullIncremental with the
 * client's paginated GET /supplier/orders, each page's rows staged and checkpointed in one transaction), against
 * a plain undici loop that only fetches and parses the same pages. The sandbox runs in a child process.
 *
 * Three repetitions; in each, rounds of the plain loop and of the engine alternate (a fresh state file every
 * engine round) until the engine has run for a set time, so each side's figure rests on seconds of work. The
 * ratio reported is the median of the repetitions' ratios, with their range.
 */
import { join } from 'node:path';
import { enginePull, plainLoop, replayServer, type LoopRun } from './lib/pull-runs.js';
import { startSandboxProcess } from './lib/sandbox-process.js';
import { check, measured } from './lib/result.js';
import { meets, perSecond, ratio, spreadOf, spreadText } from './lib/stats.js';
import { seedOrders } from './lib/seed.js';
import { withTempDir } from './lib/temp.js';
import type { BenchOptions, BenchResult, Benchmark } from './lib/types.js';

export const pull: Benchmark = {
  name: 'pull',
  title: 'Pull into the state (orders, 200 a page)',
  target: 'ratio >= 0.6 of a plain fetch-and-parse loop, against the sandbox and against replayed pages',
  run,
};

const REPETITIONS = 3;
const TARGET_RATIO = 0.6;

interface Repetition {
  engine: LoopRun;
  plain: LoopRun;
  rounds: number;
  /** Every engine round staged exactly the orders the plain loop listed. */
  exact: boolean;
}

/** Alternates plain and engine rounds until the engine has run for `minEngineMs` (at least one round each). */
async function repetition(
  dir: string,
  tag: string,
  minEngineMs: number,
  plainRound: () => Promise<LoopRun>,
  engineRound: (file: string) => Promise<LoopRun>,
): Promise<Repetition> {
  const engine = { items: 0, ms: 0 };
  const plain = { items: 0, ms: 0 };
  let rounds = 0;
  let exact = true;
  while (rounds === 0 || engine.ms < minEngineMs) {
    const base = await plainRound();
    const run = await engineRound(join(dir, `${tag}-${rounds}.db`));
    exact &&= run.items === base.items;
    plain.items += base.items;
    plain.ms += base.ms;
    engine.items += run.items;
    engine.ms += run.ms;
    rounds += 1;
  }
  return { engine, plain, rounds, exact };
}

function rates(reps: readonly Repetition[]) {
  const engine = spreadOf(reps.map((rep) => perSecond(rep.engine.items, rep.engine.ms)));
  const plain = spreadOf(reps.map((rep) => perSecond(rep.plain.items, rep.plain.ms)));
  const ratios = spreadOf(
    reps.map((rep) =>
      ratio(perSecond(rep.engine.items, rep.engine.ms), perSecond(rep.plain.items, rep.plain.ms)),
    ),
  );
  const seconds = reps.reduce((sum, rep) => sum + rep.engine.ms, 0) / 1000;
  const plainSeconds = reps.reduce((sum, rep) => sum + rep.plain.ms, 0) / 1000;
  const rounds = reps.map((rep) => rep.rounds).join(', ');
  return { engine, plain, ratios, seconds, plainSeconds, rounds, exact: reps.every((rep) => rep.exact) };
}

export async function run(options: BenchOptions): Promise<BenchResult> {
  const startedAt = performance.now();
  const orders = options.quick ? 600 : 10_000;
  const minEngineMs = options.quick ? 300 : 2_000;
  const sandbox = await startSandboxProcess();
  try {
    options.log(`  seeding ${orders} orders`);
    await seedOrders(sandbox, orders);
    return await withTempDir('pull', async (dir) => {
      const key = sandbox.keys.supplier;
      options.log('  warm-up: plain loop (pages recorded) and one engine pull');
      const recorded = new Map<string, string>();
      const listed = (await plainLoop(sandbox.origin, key, recorded)).items;
      await enginePull(join(dir, 'warm-up.db'), sandbox.baseUrl, key);
      const replay = await replayServer(recorded);
      const sandboxReps: Repetition[] = [];
      const replayReps: Repetition[] = [];
      try {
        for (let rep = 1; rep <= REPETITIONS; rep++) {
          options.log(`  repetition ${rep}/${REPETITIONS}: against the sandbox, then against replayed pages`);
          sandboxReps.push(
            await repetition(
              dir,
              `sandbox-${rep}`,
              minEngineMs,
              () => plainLoop(sandbox.origin, key),
              async (file) => asLoopRun(await enginePull(file, sandbox.baseUrl, key)),
            ),
          );
          replayReps.push(
            await repetition(
              dir,
              `replay-${rep}`,
              minEngineMs,
              () => plainLoop(replay.origin, key),
              async (file) => asLoopRun(await enginePull(file, `${replay.origin}/v2`, key)),
            ),
          );
        }
      } finally {
        await replay.close();
      }
      const live = rates(sandboxReps);
      const replayed = rates(replayReps);
      return measured({
        name: pull.name,
        title: pull.title,
        startedAt,
        figure: {
          label: `engine pull from the sandbox, staged + checkpointed, median of ${REPETITIONS}`,
          value: live.engine.median,
          unit: 'items/s',
        },
        baseline: {
          label: `plain undici fetch + JSON.parse, same sandbox, median of ${REPETITIONS}`,
          value: live.plain.median,
          unit: 'items/s',
        },
        ratio: live.ratios.median,
        checks: [
          check(
            `ratio >= ${TARGET_RATIO} (sandbox)`,
            live.ratios.median,
            '',
            meets(live.ratios.median, '>=', TARGET_RATIO),
          ),
          check(
            `ratio >= ${TARGET_RATIO} (replayed pages)`,
            replayed.ratios.median,
            '',
            meets(replayed.ratios.median, '>=', TARGET_RATIO),
          ),
          check('every listed order staged once, every round', listed, 'rows', live.exact && replayed.exact),
        ],
        details: {
          'orders listed': listed,
          'sandbox: ratio per repetition, median (range, spread)': spreadText(live.ratios),
          'sandbox: engine items/s, median (range, spread)': spreadText(live.engine),
          'sandbox: plain loop items/s, median (range, spread)': spreadText(live.plain),
          'sandbox: rounds per repetition': live.rounds,
          'sandbox: measured engine / plain loop time (s)': `${live.seconds.toFixed(1)} / ${live.plainSeconds.toFixed(1)}`,
          'replayed pages: ratio per repetition, median (range, spread)': spreadText(replayed.ratios),
          'replayed pages: engine items/s, median (range, spread)': spreadText(replayed.engine),
          'replayed pages: plain loop items/s, median (range, spread)': spreadText(replayed.plain),
          'replayed pages: rounds per repetition': replayed.rounds,
          'replayed pages: measured engine / plain loop time (s)': `${replayed.seconds.toFixed(1)} / ${replayed.plainSeconds.toFixed(1)}`,
        },
        notes: [
          `${REPETITIONS} repetitions; in each, plain-loop and engine rounds alternate until the engine has run for at least ${minEngineMs / 1000} s (every engine round into a fresh state file). The ratio is the median of the repetitions' ratios; the spread is (max - min) / median.`,
          'The pull parses every item leniently (schema drift counted), stages its JSON as the API sent it in the page transaction with the seen-set and cursor (synchronous=FULL), and has the next page requested before the current one commits. The sandbox runs in a child process.',
          'Against the sandbox both sides wait mostly on the sandbox (see the sandbox serve row), so the second pair replays the recorded pages from a bare node:http server: that ratio shows what the client, the engine and SQLite cost per item.',
          'Where the time goes: bench/profiles.md (bench/profile-pull.ts).',
        ],
      });
    });
  } finally {
    await sandbox.close();
  }
}

function asLoopRun(run: { staged: number; ms: number }): LoopRun {
  return { items: run.staged, ms: run.ms };
}
