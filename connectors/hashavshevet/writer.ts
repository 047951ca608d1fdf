/**
 * AccountingWriter for the flexible text import: one data file plus its layout file per batch, named after the
 * batch key, each written atomically. The data file's presence (in the import folder or its done/ subfolder) is
 * what says a batch was written, so a folder written to before must not be replaced by an empty one unnoticed
 * (folder-mark.ts).
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import type { AccountingWriter } from '../../src/connector-contract/capabilities.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import {
  sameEntryContent,
  type JournalBatch,
  type JournalEntry,
  type PreparedEntries,
  type WriteResult,
} from '../../src/connector-contract/journal.js';
import { isNotFound, removeStaleTempFiles, writeFileAtomic } from '../../src/kit/atomic-file.js';
import { encodeSingleByte } from '../../src/kit/single-byte-hebrew.js';
import type { HashavshevetConfig } from './config.js';
import { formatMovement, type RecordOptions } from './format-record.js';
import { buildLayout, layoutFileText, type RecordLayout } from './layout.js';
import { toMovements } from './records.js';
import { FolderMarkKeeper } from './folder-mark.js';
import { ReferenceResolver, SequenceCache } from './references.js';
import { HashavshevetReadBack } from './read.js';

export interface HashavshevetFiles {
  readonly data: string;
  readonly layout: string;
}

/** Records the precheck rendered, kept with the entries they came from so a batch reuses them only for equal ones. */
class RenderedEntries implements PreparedEntries {
  constructor(
    readonly writer: HashavshevetWriter,
    readonly entries: readonly JournalEntry[],
    readonly text: string,
  ) {}

  get entryCount(): number {
    return this.entries.length;
  }
}

export class HashavshevetWriter implements AccountingWriter {
  readonly layout: RecordLayout;
  readonly readBack: HashavshevetReadBack;
  readonly #recordOptions: RecordOptions;
  /** The reference sequence file as last read, read again only when it changed. */
  readonly #sequence = new SequenceCache();
  /** Recognises the folder written to before, so a missing or swapped one fails instead of starting afresh. */
  readonly targetMark: FolderMarkKeeper;

  /** `config.import_dir` must already be absolute (the connector definition resolves it). */
  constructor(
    private readonly config: HashavshevetConfig,
    private readonly connectorName: string,
    configFile?: string,
  ) {
    this.readBack = new HashavshevetReadBack(config, connectorName);
    this.targetMark = new FolderMarkKeeper(config.import_dir, config.sequence_start, this.#sequence, {
      connector: connectorName,
      configFile,
    });
    this.layout = buildLayout({
      dateFormat: config.date_format,
      costingCode: config.costing_code !== 'none',
      vatNumber: config.vat_number !== 'none',
    });
    this.#recordOptions = {
      dateFormat: config.date_format,
      charMap: config.char_map,
      detailsOverflow: config.details_overflow,
      costingCode: config.costing_code,
      costingCodeMap: config.costing_code_map,
      vatNumber: config.vat_number,
      textDirection: config.text_direction,
    };
  }

  get importDir(): string {
    return this.config.import_dir;
  }

  filesFor(batchKey: string, folder = this.config.import_dir): HashavshevetFiles {
    const base = join(folder, `${this.config.file_prefix}${batchKey}`);
    return { data: `${base}.DOC`, layout: `${base}.PRM` };
  }

  async hasBatch(batchKey: string): Promise<boolean> {
    checkKey(batchKey, this.connectorName);
    const doneFolder = join(this.config.import_dir, this.config.done_dir);
    for (const folder of [this.config.import_dir, doneFolder]) {
      if (await exists(this.filesFor(batchKey, folder).data)) return true;
    }
    return false;
  }

  async writeJournalBatch(batch: JournalBatch, prepared?: readonly PreparedEntries[]): Promise<WriteResult> {
    checkKey(batch.batchKey, this.connectorName);
    const files = this.filesFor(batch.batchKey);
    const result = (status: WriteResult['status']): WriteResult => ({
      batchKey: batch.batchKey,
      status,
      entryCount: batch.entries.length,
      location: files.data,
    });
    if (await this.hasBatch(batch.batchKey)) return result('already_written');
    const counter = await this.targetMark.check();
    const references = await this.#references();
    const content = encodeSingleByte(
      this.#reusable(batch.entries, prepared) ??
        this.#render(batch.entries, references, `journal batch ${batch.batchKey}`),
    );
    await removeStaleTempFiles(this.config.import_dir);
    await references.persist(counter === null);
    await writeFileAtomic(files.layout, layoutFileText(this.layout));
    await writeFileAtomic(files.data, content);
    this.targetMark.wrote(Math.max(references.next, counter?.next ?? 0));
    return result('written');
  }

  /** Why these entries could not be written (encoding, references, widths), or null when they can. No side effects. */
  async precheckEntries(entries: readonly JournalEntry[]): Promise<string | null> {
    try {
      this.#render(entries, await this.#references(), 'entries');
      return null;
    } catch (error) {
      if (error instanceof ConnectorError) return error.message;
      throw error;
    }
  }

  /**
   * The precheck, keeping the records it rendered for the batch write. Records of separately checked documents
   * add up to the batch's records because each document balances on its own (movements never span two) and
   * nothing in a record depends on the entry's position; references numbered by the sequence rule depend on the
   * batch, so under that rule nothing is kept.
   */
  async prepareEntries(
    entries: readonly JournalEntry[],
  ): Promise<
    { readonly refusal: string } | { readonly refusal: null; readonly prepared: PreparedEntries | null }
  > {
    let text: string;
    try {
      text = this.#render(entries, await this.#references(), 'entries');
    } catch (error) {
      if (error instanceof ConnectorError) return { refusal: error.message };
      throw error;
    }
    const reusable = this.config.long_references !== 'sequence';
    return { refusal: null, prepared: reusable ? new RenderedEntries(this, entries, text) : null };
  }

  /** The batch's records from the pieces prepareEntries rendered, when they match its entries one for one. */
  #reusable(
    entries: readonly JournalEntry[],
    prepared: readonly PreparedEntries[] | undefined,
  ): string | null {
    if (prepared === undefined || prepared.length === 0) return null;
    let text = '';
    let next = 0;
    for (const piece of prepared) {
      if (!(piece instanceof RenderedEntries) || piece.writer !== this) return null;
      for (const rendered of piece.entries) {
        const entry = entries[next];
        if (entry === undefined || !sameEntryContent(entry, rendered)) return null;
        next += 1;
      }
      text += piece.text;
    }
    return next === entries.length ? text : null;
  }

  #references(): Promise<ReferenceResolver> {
    return ReferenceResolver.open(
      this.config.long_references,
      this.config.import_dir,
      this.config.sequence_start,
      this.#sequence,
    );
  }

  /** The records of `entries` as text, checked for encoding, references and widths (encoding it cannot fail). */
  #render(entries: readonly JournalEntry[], references: ReferenceResolver, what: string): string {
    if (entries.length === 0) throw this.#invalid(`${what}: the batch has no entries`);
    try {
      let text = '';
      for (const movement of toMovements(entries)) {
        text += `${formatMovement(movement, this.layout, this.#recordOptions, references)}\r\n`;
      }
      return text;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw this.#invalid(`${what}: ${message}`, error);
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

function checkKey(batchKey: string, connector: string): void {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(batchKey)) {
    throw new ConnectorError(
      'connector_input_invalid',
      'a batch key for file names must be 1-100 letters, digits, dots, dashes or underscores',
      { connector, retryable: false },
    );
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
