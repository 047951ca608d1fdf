/** AccountingWriter that writes one CSV file per batch, atomically, named after the batch key. */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccountingWriter } from '../../src/connector-contract/capabilities.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { JournalBatch, JournalEntry, WriteResult } from '../../src/connector-contract/journal.js';
import { isNotFound, removeStaleTempFiles, writeFileAtomic } from '../../src/kit/atomic-file.js';
import { encodeSingleByte, toSharedHebrew } from '../../src/kit/single-byte-hebrew.js';
import type { CsvAccountingConfig } from './config.js';
import { renderCsv } from './format.js';
import { CsvJournalReadBack } from './read.js';

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const DECIMAL = /^\d+\.\d{2}$/;

export class CsvAccountingWriter implements AccountingWriter {
  readonly readBack: CsvJournalReadBack;

  /** `config.output_dir` must already be absolute (the connector definition resolves it). */
  constructor(
    private readonly config: CsvAccountingConfig,
    private readonly connectorName: string,
  ) {
    this.readBack = new CsvJournalReadBack(config, connectorName);
  }

  fileFor(batchKey: string, folder = this.config.output_dir): string {
    return join(folder, `${this.config.file_prefix}${batchKey}.csv`);
  }

  async hasBatch(batchKey: string): Promise<boolean> {
    this.#checkKey(batchKey);
    for (const folder of [this.config.output_dir, join(this.config.output_dir, this.config.done_dir)]) {
      try {
        await access(this.fileFor(batchKey, folder));
        return true;
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    return false;
  }

  async writeJournalBatch(batch: JournalBatch): Promise<WriteResult> {
    this.#checkKey(batch.batchKey);
    const file = this.fileFor(batch.batchKey);
    const result = (status: WriteResult['status']): WriteResult => ({
      batchKey: batch.batchKey,
      status,
      entryCount: batch.entries.length,
      location: file,
    });
    if (await this.hasBatch(batch.batchKey)) return result('already_written');
    const content = this.#encode(batch);
    await removeStaleTempFiles(this.config.output_dir);
    await writeFileAtomic(file, content);
    return result('written');
  }

  /** Why these entries could not be written, or null. No side effects. */
  precheckEntries(entries: readonly JournalEntry[]): Promise<string | null> {
    try {
      this.#encode({ batchKey: 'precheck', entries });
      return Promise.resolve(null);
    } catch (error) {
      if (error instanceof ConnectorError) return Promise.resolve(error.message);
      throw error;
    }
  }

  #encode(batch: JournalBatch): Buffer {
    if (batch.entries.length === 0) throw this.#invalid(`journal batch ${batch.batchKey} has no entries`);
    for (const entry of batch.entries) {
      if (!DECIMAL.test(entry.amount)) {
        throw this.#invalid(`line ${entry.lineNumber} has an amount that is not a positive decimal`);
      }
    }
    if (this.config.encoding === 'utf-8') {
      const body = Buffer.from(renderCsv(batch, this.config), 'utf8');
      return this.config.bom ? Buffer.concat([UTF8_BOM, body]) : body;
    }
    try {
      const where = `journal batch ${batch.batchKey}`;
      return encodeSingleByte(
        renderCsv(batch, this.config, (cell) => toSharedHebrew(cell, this.config.char_map, where)),
      );
    } catch (error) {
      throw this.#invalid(error instanceof Error ? error.message : String(error), error);
    }
  }

  #checkKey(batchKey: string): void {
    if (!/^[A-Za-z0-9._-]{1,100}$/.test(batchKey)) {
      throw this.#invalid(
        'a batch key for file names must be 1-100 letters, digits, dots, dashes or underscores',
      );
    }
  }

  #invalid(message: string, cause?: unknown): ConnectorError {
    return new ConnectorError('connector_input_invalid', message, {
      connector: this.connectorName,
      retryable: false,
      cause,
    });
  }
}
