/**
 * `node --import tsx bench/pull-checkpoints.ts [rounds] [thread interval ms]`: what the page commit's checkpoint and fsync cost the
 * pull against replayed pages (bench/profiles.md, "checkpoints on a thread of their own"). The benchmark's engine
 * and staging (bench/lib/pull-runs.ts enginePull) over the same 10,048 recorded orders, the replay server in this
 * process as in the benchmark, with the state file:
 * - as the daemon opens it (synchronous=FULL, SQLite's checkpoints inline, in the commit that crosses 1,000 frames);
 * - with synchronous=NORMAL;
 * - with no checkpoint until the store closes (wal_autocheckpoint = 0, outside the timed span: a diagnostic of
 *   what the checkpoints cost, not a setting a daemon could keep), under FULL and NORMAL;
 * - with checkpoints on a thread of their own (bench/lib/checkpoint-thread.ts), at most one every 20 ms (or the
 *   interval given), the thread started and its connection open before the pull is timed.
 * It also times the disk under the state files: a page's worth of WAL frames (100 frames of 4 KiB, written as SQLite
 * writes them: a 24-byte header, then the page) and an fdatasync, 50 times.
 * Each round runs three plain-loop passes, then three pulls of each variant, each into a fresh state file, the
 * variants in an order that turns by one each round; a round's ratio is the plain loop's wall time per order over
 * the variant's. Medians and ranges over the rounds.
 */
import { closeSync, fdatasyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { enginePull, plainLoop, type StateTuning } from './lib/pull-runs.js';
import { withReplayedOrders } from './lib/replayed-orders.js';
import { spreadOf, spreadText } from './lib/stats.js';

const PASSES_PER_ROUND = 3;
const THREAD_INTERVAL_MS = Number(process.argv[3] ?? 20);

const VARIANTS: Record<string, StateTuning> = {
  'as the daemon (FULL, checkpoints inline)': {},
  'synchronous=NORMAL': { synchronous: 'normal' },
  'FULL, no checkpoint until close (diagnostic)': { walAutocheckpoint: 0 },
  'NORMAL, no checkpoint until close (diagnostic)': { synchronous: 'normal', walAutocheckpoint: 0 },
  [`FULL, checkpoints on a thread (every ${THREAD_INTERVAL_MS} ms at most)`]: {
    checkpointThreadMs: THREAD_INTERVAL_MS,
  },
};

/** Milliseconds per page of WAL frames: writing them, then the fdatasync (medians of 50). */
function diskPerPage(file: string): { write: number; sync: number } {
  const frame = Buffer.alloc(4096 + 24, 1);
  const writes: number[] = [];
  const syncs: number[] = [];
  const fd = openSync(file, 'w');
  try {
    for (let page = 0; page < 50; page++) {
      const started = performance.now();
      for (let index = 0; index < 100; index++) {
        writeSync(fd, frame, 0, 24);
        writeSync(fd, frame, 24, 4096);
      }
      const written = performance.now();
      fdatasyncSync(fd);
      writes.push(written - started);
      syncs.push(performance.now() - written);
    }
  } finally {
    closeSync(fd);
  }
  return { write: spreadOf(writes).median, sync: spreadOf(syncs).median };
}

const rounds = Number(process.argv[2] ?? 5);
await withReplayedOrders('pull-checkpoints', 10_000, async ({ dir, key, recorded, origin, baseUrl }) => {
  const plain: number[] = [];
  const ratios = new Map<string, number[]>(Object.keys(VARIANTS).map((name) => [name, []]));
  const framesByThread: number[] = [];
  await enginePull(join(dir, 'warm-up.db'), baseUrl, key);
  for (let round = 0; round < rounds; round++) {
    let items = 0;
    let ms = 0;
    for (let pass = 0; pass < PASSES_PER_ROUND; pass++) {
      const run = await plainLoop(origin, key);
      items += run.items;
      ms += run.ms;
    }
    const base = (ms * 1000) / items;
    plain.push(base);
    const variants = Object.entries(VARIANTS);
    const turned = [
      ...variants.slice(round % variants.length),
      ...variants.slice(0, round % variants.length),
    ];
    for (const [index, [name, tuning]] of turned.entries()) {
      let staged = 0;
      let engineMs = 0;
      for (let pass = 0; pass < PASSES_PER_ROUND; pass++) {
        const run = await enginePull(join(dir, `${round}-${index}-${pass}.db`), baseUrl, key, tuning);
        staged += run.staged;
        engineMs += run.ms;
        if (run.framesCopiedByThread !== null) framesByThread.push(run.framesCopiedByThread);
      }
      ratios.get(name)?.push(base / ((engineMs * 1000) / staged));
    }
  }
  process.stdout.write(
    `${recorded.size} pages, ${rounds} rounds, load average ${loadavg()[0]?.toFixed(2)}\n` +
      `plain loop, us per order (wall): ${spreadText(spreadOf(plain))}\n` +
      'variant: ratio to the plain loop, median (range, spread)\n',
  );
  for (const [name, list] of ratios) process.stdout.write(`- ${name}: ${spreadText(spreadOf(list))}\n`);
  const disk = diskPerPage(join(dir, 'disk.bin'));
  process.stdout.write(
    `disk, per page of 100 WAL frames (median of 50): write ${disk.write.toFixed(2)} ms, fdatasync ${disk.sync.toFixed(2)} ms\n`,
  );
  process.stdout.write(`frames copied by the checkpoint thread, per pull: ${framesByThread.join(', ')}\n`);
});
