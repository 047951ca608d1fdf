/**
 * What each journal batch put into the books, noted when the batch is marked exported (in the same transaction): its
 * file or batch name, its documents by their references, its rows and their totals per currency. The daily report
 * reads these, so it counts each document and row once however many runs touched it.
 */
import type { KeyValueStore } from './kv.js';

export interface WrittenBatch {
  readonly at: number;
  /** Where the target put it: a file name, a batch id. */
  readonly location: string | null;
  /** The documents' references as written (an invoice number), in entry order, each once. */
  readonly references: readonly string[];
  /** Rows written to the books. */
  readonly rows: number;
  /** Debit totals per currency, e.g. { ILS: "4250.00" }: a balanced document's amount. */
  readonly debits: Readonly<Record<string, string>>;
}

const namespace = (connector: string) => `written_batches:${connector}`;

export function noteWrittenBatch(kv: KeyValueStore, connector: string, batchKey: string, batch: WrittenBatch): void {
  kv.set(namespace(connector), batchKey, batch);
}

/** The batches written through `connector` in [from, to), oldest first. */
export function writtenBatchesBetween(
  kv: KeyValueStore,
  connector: string,
  from: number,
  to: number,
): Array<WrittenBatch & { batchKey: string }> {
  return kv
    .keys(namespace(connector))
    .map((batchKey) => ({ ...(kv.get(namespace(connector), batchKey) as WrittenBatch), batchKey }))
    .filter((batch) => batch.at >= from && batch.at < to)
    .sort((a, b) => a.at - b.at);
}
