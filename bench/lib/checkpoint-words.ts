/** The shared Int32Array words between bench/lib/checkpoint-thread.ts and the thread that starts it. */
export const CheckpointWord = {
  /** Commits made by the store; the thread waits on this word. */
  commits: 0,
  /** Set to 1 to stop the thread. */
  stop: 1,
  /** Set to 1 by the thread once its connection is closed. */
  closed: 2,
  /** Frames the thread's checkpoints copied (at least: a WAL restarted between two looks may count short). */
  framesCopied: 3,
} as const;

export const CHECKPOINT_WORDS = 4;
