/**
 * A worker thread that stages orders in its own SQLite file (WAL, synchronous=FULL) with the pull benchmark's
 * staging table, one transaction per message, and answers each message with the number of rows it committed.
 * Messages (StagingMessage): a page's rows as a flat [id, updated_at, json, ...] array, or a page's body as
 * received with the orders' [id, updated_at, ...] in the order of its data array, the thread cutting each order's
 * JSON from the body itself; null closes the file and answers with the table's row count. It says 'ready' once its
 * file is open, so that no setup work overlaps a measurement.
 */
import BetterSqlite3 from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import { dataElementTexts } from '../../src/client/item-texts.js';

export type StagingMessage = { rows: string[] } | { body: string; keys: string[] } | null;

const STAGING_TABLE =
  'CREATE TABLE bench_staged (id TEXT PRIMARY KEY, updated_at TEXT NOT NULL, body TEXT NOT NULL)';
const STAGE =
  'INSERT INTO bench_staged (id, updated_at, body) VALUES (?, ?, ?) ' +
  'ON CONFLICT (id) DO UPDATE SET updated_at = excluded.updated_at, body = excluded.body';

const port = parentPort;
if (port === null) throw new Error('staging-thread.ts runs as a worker thread');
const db = new BetterSqlite3((workerData as { file: string }).file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = FULL');
db.exec(STAGING_TABLE);
const insert = db.prepare(STAGE);

/** Flat [id, updated_at, json, ...] rows of a body and its orders' keys. */
function rowsOfBody(body: string, keys: readonly string[]): string[] {
  const texts = dataElementTexts(body);
  if (texts === null || texts.length * 2 !== keys.length) {
    throw new Error(`the body has ${texts?.length ?? 0} elements for ${keys.length / 2} orders`);
  }
  return texts.flatMap((text, i) => [keys[2 * i] ?? '', keys[2 * i + 1] ?? '', text]);
}

const commit = db.transaction((message: Exclude<StagingMessage, null>) => {
  const rows = 'rows' in message ? message.rows : rowsOfBody(message.body, message.keys);
  for (let at = 0; at + 2 < rows.length; at += 3) insert.run(rows[at], rows[at + 1], rows[at + 2]);
  return rows.length / 3;
});

port.on('message', (message: StagingMessage) => {
  if (message === null) {
    const { n } = db.prepare('SELECT count(*) AS n FROM bench_staged').get() as { n: number };
    db.close();
    port.postMessage(n);
    return;
  }
  port.postMessage(commit(message));
});
port.postMessage('ready');
