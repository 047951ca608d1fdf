/** Starts bench/lib/staging-thread.ts as a worker thread under tsx, as the benchmarks run from source. */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StagingMessage } from './staging-thread.js';

export interface StagingThread {
  /** Posts one page (see StagingMessage); the thread commits it in one transaction. */
  stage(page: Exclude<StagingMessage, null>): void;
  /** Waits for every posted page to commit, closes the file and gives the staged row count. */
  finish(): Promise<number>;
}

/** A worker script that registers tsx in the thread, then imports `entry` (a .ts module). */
export function tsxWorkerScript(entry: URL): string {
  const tsxPackage = createRequire(import.meta.url).resolve('tsx/package.json');
  const tsxApi = pathToFileURL(join(dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
  return `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
}

export async function startStagingThread(file: string): Promise<StagingThread> {
  const worker = new Worker(tsxWorkerScript(new URL('./staging-thread.ts', import.meta.url)), {
    eval: true,
    workerData: { file },
  });
  let failure: unknown = null;
  let pending = 0;
  let drained: (() => void) | null = null;
  worker.on('error', (error) => {
    failure = error;
    drained?.();
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  worker.on('message', () => {
    pending -= 1;
    if (pending === 0) drained?.();
  });
  return {
    stage(page) {
      pending += 1;
      worker.postMessage(page);
    },
    async finish() {
      if (pending > 0 && failure === null) await new Promise<void>((resolve) => (drained = resolve));
      if (failure !== null) {
        await worker.terminate();
        throw failure;
      }
      worker.removeAllListeners('message');
      const count = new Promise<number>((resolve) => worker.once('message', resolve));
      worker.postMessage(null satisfies StagingMessage);
      const staged = await count;
      await worker.terminate();
      return staged;
    },
  };
}
