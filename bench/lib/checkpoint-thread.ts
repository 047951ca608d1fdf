/**
 * A worker thread that checkpoints a SQLite file in WAL mode from its own connection (bench/pull-checkpoints.ts):
 * it waits on a shared counter of commits (CheckpointWords), runs a PASSIVE checkpoint at most once per
 * `minIntervalMs`, adds the frames it copied to the shared words, and closes its connection when asked to stop.
 */
import BetterSqlite3 from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { CheckpointWord } from './checkpoint-words.js';

const {
  file,
  words: buffer,
  minIntervalMs,
} = workerData as {
  file: string;
  words: SharedArrayBuffer;
  minIntervalMs: number;
};
const words = new Int32Array(buffer);
const db = new BetterSqlite3(file, { fileMustExist: true, timeout: 0 });
// A checkpoint syncs the WAL before copying and the database file after, as the store's own would.
db.pragma('synchronous = FULL');
// Says it is ready once its connection is open, so that its start-up is not timed with a pull.
parentPort?.postMessage('ready');

const stopping = () => Atomics.load(words, CheckpointWord.stop) !== 0;
let seen = 0;
let last = 0;
let before = { log: 0, checkpointed: 0 };
try {
  while (!stopping()) {
    Atomics.wait(words, CheckpointWord.commits, seen, 1_000);
    const wait = last + minIntervalMs - performance.now();
    if (wait > 0) Atomics.wait(words, CheckpointWord.stop, 0, wait);
    if (stopping()) break;
    seen = Atomics.load(words, CheckpointWord.commits);
    last = performance.now();
    try {
      const [result] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{
        busy: number;
        log: number;
        checkpointed: number;
      }>;
      // busy (log and checkpointed -1): another connection's checkpoint was running; nothing was looked at.
      if (result !== undefined && result.busy === 0 && result.log >= 0) {
        // The counts are of the WAL as it stands; one restarted since the last look counts from zero.
        const restarted = result.log < before.log || result.checkpointed < before.checkpointed;
        Atomics.add(
          words,
          CheckpointWord.framesCopied,
          result.checkpointed - (restarted ? 0 : before.checkpointed),
        );
        before = result;
      }
    } catch (error) {
      // The WAL is locked another way (a writer resetting it): look again later.
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY') throw error;
    }
  }
} finally {
  db.close();
  Atomics.store(words, CheckpointWord.closed, 1);
  Atomics.notify(words, CheckpointWord.closed);
}
