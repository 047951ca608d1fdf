/**
 * Reads the import files back for reconciliation, with the reader written from the published PRM line table (not
 * the writer's layout): every `<file_prefix>*.DOC` with its .PRM, in the import folder and the folder processed
 * files are moved to. Each debit and credit slot of a movement is one posting. Read-only.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type {
  BookEntry,
  BookRead,
  JournalReadBack,
  UnbalancedRecord,
} from '../../src/connector-contract/journal-read.js';
import { isNotFound } from '../../src/kit/atomic-file.js';
import { formatMoney } from '../../src/shared/decimal.js';
import type { HashavshevetConfig } from './config.js';
import { parsePublishedDoc, parsePublishedPrm, type PublishedMovement } from './published-reader.js';
import { ReferenceResolver } from './references.js';

export class HashavshevetReadBack implements JournalReadBack {
  #references: Promise<ReferenceResolver> | undefined;

  constructor(
    private readonly config: HashavshevetConfig,
    private readonly connectorName: string,
  ) {}

  async bookReference(reference: string): Promise<string | null> {
    this.#references ??= ReferenceResolver.open(
      this.config.long_references,
      this.config.import_dir,
      this.config.sequence_start,
    );
    return (await this.#references).lookup(reference);
  }

  async readBooks(): Promise<BookRead> {
    const files = await this.#dataFiles();
    const entries: BookEntry[] = [];
    const unbalanced: UnbalancedRecord[] = [];
    for (const file of files) {
      const read = await this.#readFile(file);
      entries.push(...read.entries);
      unbalanced.push(...read.unbalanced);
    }
    return {
      fields: { date: true, valueDate: true, period: false, reference: true },
      entries,
      unbalanced,
      sources: files.map((file) => relative(this.config.import_dir, file)),
    };
  }

  async #dataFiles(): Promise<string[]> {
    const folders = [this.config.import_dir, join(this.config.import_dir, this.config.done_dir)];
    const files: string[] = [];
    for (const [index, folder] of folders.entries()) {
      let names: string[];
      try {
        names = await readdir(folder);
      } catch (error) {
        if (index > 0 && isNotFound(error)) continue; // nothing was imported yet
        throw this.#fail(`the import folder ${folder} cannot be read (${codeOf(error)})`, error);
      }
      const ours = names.filter((name) => name.startsWith(this.config.file_prefix) && name.endsWith('.DOC'));
      files.push(...ours.sort().map((name) => join(folder, name)));
    }
    return files;
  }

  async #readFile(dataFile: string): Promise<{ entries: BookEntry[]; unbalanced: UnbalancedRecord[] }> {
    const name = relative(this.config.import_dir, dataFile);
    const layoutFile = dataFile.replace(/\.DOC$/, '.PRM');
    let movements: PublishedMovement[];
    try {
      const layout = parsePublishedPrm(await this.#bytes(layoutFile));
      movements = parsePublishedDoc(await this.#bytes(dataFile), layout);
    } catch (error) {
      if (error instanceof ConnectorError) throw error;
      throw this.#fail(`${name} cannot be read as an import file: ${messageOf(error)}`, error);
    }
    const batchKey = name.replace(/^.*[\\/]/, '').slice(this.config.file_prefix.length, -'.DOC'.length);
    const located = movements.map((movement, i) => ({ movement, location: `${name} record ${i + 1}` }));
    return {
      entries: located.flatMap(({ movement, location }) => postings(movement, batchKey, location)),
      unbalanced: located
        .filter(({ movement }) => movement.unbalanced !== null)
        .map(({ movement, location }) => ({
          location,
          reference: movement.reference1,
          detail: (movement.unbalanced ?? '').replace(/^DOC record \d+ /, 'the record '),
        })),
    };
  }

  async #bytes(file: string): Promise<Buffer> {
    try {
      return await readFile(file);
    } catch (error) {
      throw this.#fail(`${relative(this.config.import_dir, file)} cannot be read (${codeOf(error)})`, error);
    }
  }

  #fail(message: string, cause?: unknown): ConnectorError {
    return new ConnectorError('connector_result_invalid', message, {
      connector: this.connectorName,
      retryable: false,
      cause,
    });
  }
}

function postings(movement: PublishedMovement, batchKey: string, location: string): BookEntry[] {
  const posting = (side: 'debit' | 'credit', account: string, agorot: bigint): BookEntry => ({
    location,
    batchKey,
    sourceIds: null,
    side,
    account,
    amount: formatMoney(agorot),
    date: movement.referenceDate === '' ? null : movement.referenceDate,
    valueDate: movement.valueDate === '' ? null : movement.valueDate,
    period: null,
    reference: movement.reference1,
  });
  return [
    ...movement.debits.map((slot) => posting('debit', slot.account, slot.agorot)),
    ...movement.credits.map((slot) => posting('credit', slot.account, slot.agorot)),
  ];
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? messageOf(error);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
