/**
 * A synchronous SQL port on PostgreSQL, built the way the state store's is (pg in a worker thread, the caller
 * blocked on Atomics.wait until the answer is back), so the fence's synchronous check runs in a real transaction.
 */
import path from 'node:path';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import type { SyncRowReader } from '../../../src/state/index.js';
import { compiledEntry } from '../../support/compiled-entry.js';

const WORKER = path.join(import.meta.dirname, 'sync-pg-worker.ts');
const ANSWER_TIMEOUT_MS = 30_000;

type Reply = { rows: unknown[] } | { error: { message: string; code: unknown } };

export class SyncPgPort implements SyncRowReader {
  readonly #worker: Worker;
  readonly #port: MessagePort;
  readonly #signal = new Int32Array(new SharedArrayBuffer(4));

  constructor(url: string) {
    const { port1, port2 } = new MessageChannel();
    this.#port = port1;
    this.#worker = new Worker(compiledEntry(WORKER), {
      workerData: { url, port: port2, signal: this.#signal },
      transferList: [port2],
    });
  }

  prepare(sql: string): { get(...params: unknown[]): unknown } {
    return { get: (...params) => this.run(sql, params)[0] };
  }

  run(sql: string, params: unknown[] = []): unknown[] {
    Atomics.store(this.#signal, 0, 0);
    this.#port.postMessage({ sql, params });
    if (Atomics.wait(this.#signal, 0, 0, ANSWER_TIMEOUT_MS) === 'timed-out') {
      throw new Error(`no answer from PostgreSQL within ${ANSWER_TIMEOUT_MS}ms`);
    }
    const reply = receiveMessageOnPort(this.#port)?.message as Reply | undefined;
    if (reply === undefined) throw new Error('the PostgreSQL worker answered nothing');
    if ('error' in reply) throw Object.assign(new Error(reply.error.message), { code: reply.error.code });
    return reply.rows;
  }

  async close(): Promise<void> {
    this.#port.close();
    await this.#worker.terminate();
  }
}
