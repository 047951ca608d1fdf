/**
 * The worker half of SyncPgPort: runs each statement it is sent on one pg session and wakes the blocked caller.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import pg from 'pg';

interface Request {
  readonly sql: string;
  readonly params: unknown[];
}

const { url, port, signal } = workerData as { url: string; port: MessagePort; signal: Int32Array };
const client = new pg.Client({ connectionString: url });
const ready = client.connect();

port.on('message', (request: Request) => {
  void (async () => {
    let reply: { rows: unknown[] } | { error: { message: string; code: unknown } };
    try {
      await ready;
      reply = { rows: (await client.query(request.sql, request.params)).rows };
    } catch (error) {
      const failure = error as { message?: string; code?: unknown };
      reply = { error: { message: failure.message ?? String(error), code: failure.code } };
    }
    port.postMessage(reply);
    Atomics.store(signal, 0, 1);
    Atomics.notify(signal, 0);
  })();
});

port.on('close', () => void client.end());
