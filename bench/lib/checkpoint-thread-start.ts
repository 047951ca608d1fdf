/** Starts bench/lib/checkpoint-thread.ts for a state file: checkpoints on a thread of their own. */
import { Worker } from 'node:worker_threads';
import { CHECKPOINT_WORDS, CheckpointWord } from './checkpoint-words.js';
import { tsxWorkerScript } from './staging-thread-start.js';

export interface CheckpointThread {
  /** Tells the thread that a commit was made. */
  committed(): void;
  /** Frames the thread has copied so far. */
  readonly framesCopied: number;
  /** Stops the thread and waits until its connection is closed (before the store's own closes). */
  close(): Promise<void>;
}

export function startCheckpointThread(file: string, minIntervalMs: number): CheckpointThread {
  const words = new Int32Array(new SharedArrayBuffer(CHECKPOINT_WORDS * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(tsxWorkerScript(new URL('./checkpoint-thread.ts', import.meta.url)), {
    eval: true,
    workerData: { file, words: words.buffer, minIntervalMs },
  });
  let failure: unknown = null;
  worker.on('error', (error) => (failure = error));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    committed() {
      Atomics.add(words, CheckpointWord.commits, 1);
      Atomics.notify(words, CheckpointWord.commits);
    },
    get framesCopied() {
      return Atomics.load(words, CheckpointWord.framesCopied);
    },
    async close() {
      Atomics.store(words, CheckpointWord.stop, 1);
      Atomics.notify(words, CheckpointWord.stop);
      Atomics.notify(words, CheckpointWord.commits);
      await exited;
      if (failure !== null) throw failure;
    },
  };
}
