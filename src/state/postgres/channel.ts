/**
 * Calls into the PostgreSQL worker synchronously: post a request, block this thread on a shared signal with
 * Atomics.wait until the worker has posted the answer, then take the answer with receiveMessageOnPort (which
 * needs no event loop turn). The event loop waits for every database round trip, as it already waits for SQLite's
 * fsync; timers and sockets catch up when the statement returns.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { MessageChannel, type MessagePort, Worker, receiveMessageOnPort } from 'node:worker_threads';
import type {
  RequestEnvelope,
  ResponseEnvelope,
  WorkerPing,
  WorkerRequest,
  WorkerResponse,
  WorkerSetup,
} from './protocol.js';

/** How long an empty port is waited on before it is looked at again. */
const RECHECK_MS = 20;

/** The worker did not answer in time (the server hangs, or the worker could not start). */
export class WorkerTimeoutError extends Error {
  readonly code = 'state_timeout';
}

/**
 * From the TypeScript sources only: a compiled state worker to start instead of compiling state-worker.ts in each
 * new worker thread. The test run compiles one for all its processes (test/support/global-setup.ts): under tsx a
 * worker took about 0.6 s of CPU to start, compiled 0.2 s, and the tests open hundreds of PostgreSQL states.
 */
export const COMPILED_STATE_WORKER_ENV = 'SUPPLY_SYNC_STATE_WORKER';

/**
 * The worker script, state-worker.ts compiled beside this module: state-worker.js in the build, state-worker.mjs
 * in a bundle (a bundle must emit it as an entry of its own, beside its chunks). From the TypeScript sources (tests,
 * development under tsx) a small bootstrap first registers tsx's loader in the worker thread, since a loader given
 * to the parent does not reach a worker's module loading, unless COMPILED_STATE_WORKER_ENV names a compiled one.
 */
function workerScript(): { script: string | URL; eval: boolean } {
  const here = import.meta.url;
  const compiled = process.env[COMPILED_STATE_WORKER_ENV];
  if (here.endsWith('.ts') && compiled !== undefined && existsSync(compiled)) {
    return { script: pathToFileURL(compiled), eval: false };
  }
  if (here.endsWith('.ts')) {
    // tsx's ESM register API (its CommonJS build resolves a wrong path when imported from ESM).
    const tsxPackage = createRequire(here).resolve('tsx/package.json');
    const tsxApi = pathToFileURL(join(dirname(tsxPackage), 'dist/esm/api/index.mjs')).href;
    const entry = new URL('./state-worker.ts', here).href;
    return {
      script: `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); });`,
      eval: true,
    };
  }
  for (const name of ['./state-worker.js', './state-worker.mjs']) {
    const url = new URL(name, here);
    if (existsSync(url)) return { script: url, eval: false };
  }
  throw new Error(`the PostgreSQL state worker (state-worker.js) is missing beside ${fileURLToPath(here)}`);
}

/**
 * The one worker thread of the process (state-worker.ts), started at the first port and kept, unreferenced, for
 * the next ones. A worker that exits (it failed to start, or crashed) or stops answering is retired with every
 * channel it served: their stores open new sessions on a new worker at their next call.
 */
let shared: Worker | null = null;
/** The channels of the shared worker still open, to be closed with it. */
const open = new Set<SyncWorkerChannel>();

function sharedWorker(): Worker {
  if (shared !== null) return shared;
  const entry = workerScript();
  const worker = new Worker(entry.script, {
    eval: entry.eval,
    // The worker's own output would bypass the daemon's logger (and could carry the connection string).
    stdout: true,
    stderr: true,
  });
  // An uncaught failure in the worker ends it: retired on 'exit', which follows, with the failure as the reason.
  let failure: string | undefined;
  worker.on('error', (error) => (failure = error.message));
  worker.on('exit', (code) => retire(worker, `the PostgreSQL state worker thread stopped (${failure ?? `exit ${code}`})`));
  // It does not keep the process alive: an exiting process must not wait for it.
  worker.unref();
  shared = worker;
  return worker;
}

/** The worker thread serving the ports now, if one runs (tests stop it to see a crash handled). */
export function sharedWorkerThread(): Worker | null {
  return shared;
}

/** How long a worker has to show its thread still runs, once a session of it did not answer in time. */
const PING_MS = 1_000;

function workerAnswers(worker: Worker): boolean {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  worker.postMessage({ ping: flag.buffer } satisfies WorkerPing);
  return Atomics.wait(flag, 0, 0, PING_MS) !== 'timed-out';
}

/** Closes every channel of `worker`, telling each why, and stops it; the next channel starts a new worker. */
function retire(worker: Worker, reason: string): void {
  if (shared === worker) shared = null;
  for (const channel of [...open]) if (channel.servedBy(worker)) channel.terminate(reason);
  void worker.terminate();
}

/** One synchronous connection: a session of its own in the shared worker, reached through a port of its own. */
export class SyncWorkerChannel {
  readonly #signal = new Int32Array(new SharedArrayBuffer(4));
  readonly #port: MessagePort;
  readonly #worker: Worker;
  #sequence = 0;
  #closed = false;
  #retiredBecause: string | null = null;

  constructor(setup: WorkerSetup) {
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = sharedWorker();
    this.#worker.postMessage({ port: port2, signal: this.#signal.buffer, setup }, [port2]);
    // The port does not keep the process alive either: the store closes it.
    this.#port.unref();
    open.add(this);
  }

  servedBy(worker: Worker): boolean {
    return this.#worker === worker;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Why the channel's worker was retired under it (it crashed or stopped answering), or null. */
  get retiredBecause(): string | null {
    return this.#retiredBecause;
  }

  /**
   * Posts a request and blocks until its answer. The answer is looked for on the port, not trusted from the
   * signal alone: an answer can become visible on the port a moment after the worker's signal, so an empty port
   * is waited on again (briefly, then re-checked) until the deadline. Answers carry the request's number, so an
   * answer to an abandoned call can never be taken for the current one.
   */
  call(request: WorkerRequest, timeoutMs: number): WorkerResponse {
    if (this.#closed) throw new Error('the state database connection is closed');
    this.#sequence += 1;
    const id = this.#sequence;
    Atomics.store(this.#signal, 0, 0);
    this.#port.postMessage({ id, request } satisfies RequestEnvelope);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const received = receiveMessageOnPort(this.#port);
      if (received !== undefined) {
        const answer = received.message as ResponseEnvelope;
        if (answer.id === id) return answer.response;
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        // Most often the server hangs this session only: the session is given up (the worker drops its
        // connection), and the others keep theirs. A worker that does not answer a ping is stuck: it is replaced
        // with every session it served (none is inside a call now: they are all made from this thread, in turn).
        this.terminate();
        if (!workerAnswers(this.#worker)) retire(this.#worker, 'the PostgreSQL state worker thread stopped answering');
        throw new WorkerTimeoutError(`PostgreSQL did not answer within ${Math.round(timeoutMs / 1000)} s`);
      }
      Atomics.wait(this.#signal, 0, 0, Math.min(left, RECHECK_MS));
      Atomics.store(this.#signal, 0, 0);
    }
  }

  /**
   * Gives the connection up at once, for one that no longer answers: the port is closed, and the worker drops the
   * session's connection when it sees that; the next call of the store opens a new session.
   */
  terminate(reason?: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#retiredBecause = reason ?? null;
    open.delete(this);
    this.#port.close();
  }

  close(timeoutMs: number): void {
    if (this.#closed) return;
    try {
      this.call({ kind: 'close' }, timeoutMs);
    } catch {
      // A worker that cannot close its connection cleanly is stopped anyway.
    }
    this.terminate();
  }
}
