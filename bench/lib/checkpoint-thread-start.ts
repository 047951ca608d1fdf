/** Starts bench/lib/checkpoint-thread.ts for a state file: checkpoints on a thread of their own. */
import { once } from 'node:events';
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

/** Starts the thread and waits until its connection is open, so that its start-up is not timed with a pull. */
export async function startCheckpointThread(file: string, minIntervalMs: number): Promise<CheckpointThread> {
  const words = new Int32Array(new SharedArrayBuffer(CHECKPOINT_WORDS * Int32Array.BYTES_PER_ELEMENT));
  const worker = new Worker(tsxWorkerScript(new URL('./checkpoint-thread.ts', import.meta.url)), {
    eval: true,
    workerData: { file, words: words.buffer, minIntervalMs },
  });
  let failure: unknown = null;
  worker.on('error', (error) => (failure = error));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const ready = await Promise.race([once(worker, 'message').then(() => true), exited.then(() => false)]);
  if (!ready) throw new Error(`the checkpoint thread ended before it was ready: ${String(failure)}`);
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
      // Also moves the word the thread waits on, so a thread about to wait sees a change and does not sleep.
      Atomics.add(words, CheckpointWord.commits, 1);
      Atomics.notify(words, CheckpointWord.commits);
      await exited;
      if (failure !== null) throw failure;
    },
  };
}
