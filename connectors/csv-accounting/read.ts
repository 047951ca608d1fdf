/**
 * Reads the CSV journal files back for reconciliation: every `<file_prefix>*.csv` in the output folder and its done
 * folder, each cell taken by the column the config places there. Read-only.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import iconv from 'iconv-lite';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { BookEntry, BookRead, JournalReadBack } from '../../src/connector-contract/journal-read.js';
import { isNotFound } from '../../src/kit/atomic-file.js';
import { parseCsv } from '../../src/kit/csv.js';
import type { CsvAccountingConfig, CsvEntryField } from './config.js';

const DECIMAL = /^(\d+)(?:\.(\d{1,2}))?$/;

export class CsvJournalReadBack implements JournalReadBack {
  readonly #fieldAt: ReadonlyMap<CsvEntryField, number>;

  constructor(
    private readonly config: CsvAccountingConfig,
    private readonly connectorName: string,
  ) {
    const fieldAt = new Map<CsvEntryField, number>();
    config.columns.forEach((column, index) => {
      if ('field' in column && !fieldAt.has(column.field)) fieldAt.set(column.field, index);
    });
    this.#fieldAt = fieldAt;
  }

  bookReference(reference: string): Promise<string | null> {
    return Promise.resolve(reference);
  }

  async readBooks(): Promise<BookRead> {
    const has = (field: CsvEntryField) => this.#fieldAt.has(field);
    if (!has('account') || !((has('amount') && has('side')) || (has('debit') && has('credit')))) {
      throw this.#fail(
        'the CSV files cannot be read back: the columns must include account and either amount with side, or ' +
          'debit and credit',
      );
    }
    const files = await this.#files();
    const entries: BookEntry[] = [];
    for (const file of files) entries.push(...(await this.#readFile(file)));
    return {
      fields: {
        date: has('date'),
        valueDate: has('value_date'),
        period: has('period'),
        reference: has('reference'),
      },
      entries,
      sources: files.map((file) => relative(this.config.output_dir, file) || file),
    };
  }

  async #files(): Promise<string[]> {
    const folders = [this.config.output_dir, join(this.config.output_dir, this.config.done_dir)];
    const files: string[] = [];
    for (const [index, folder] of folders.entries()) {
      let names: string[];
      try {
        names = await readdir(folder);
      } catch (error) {
        if (index > 0 && isNotFound(error)) continue; // no file was moved yet
        throw this.#fail(`the output folder ${folder} cannot be read (${codeOf(error)})`, error);
      }
      const ours = names.filter((name) => name.startsWith(this.config.file_prefix) && name.endsWith('.csv'));
      files.push(...ours.sort().map((name) => join(folder, name)));
    }
    return files;
  }

  async #readFile(file: string): Promise<BookEntry[]> {
    let bytes: Buffer;
    try {
      bytes = await readFile(file);
    } catch (error) {
      throw this.#fail(`${file} cannot be read (${codeOf(error)})`, error);
    }
    const text =
      this.config.encoding === 'utf-8' ? bytes.toString('utf8') : iconv.decode(bytes, 'windows-1255');
    const rows = parseCsv(text, this.config.separator).slice(this.config.header ? 1 : 0);
    const name = relative(this.config.output_dir, file);
    return rows.map((cells, i) => this.#entry(cells, `${name} row ${i + 1}`));
  }

  #entry(cells: readonly string[], location: string): BookEntry {
    const cell = (field: CsvEntryField): string | null => {
      const index = this.#fieldAt.get(field);
      const value = index === undefined ? undefined : cells[index];
      return value === undefined || value === '' ? null : value;
    };
    const date = (field: CsvEntryField) => {
      const value = cell(field);
      return value === null
        ? null
        : parseDate(value, this.config.date_format, () =>
            this.#fail(`${location}: ${field} "${value}" is not a ${this.config.date_format} date`),
          );
    };
    const signed = this.#signed(cell, location);
    const ids = cell('source_ids');
    return {
      location,
      batchKey: cell('batch_key'),
      sourceIds: ids === null ? null : ids.split(/\s+/).filter((id) => id !== ''),
      side: signed.side,
      account: cell('account') ?? '',
      amount: signed.amount,
      date: date('date'),
      valueDate: date('value_date'),
      period: cell('period'),
      reference: cell('reference'),
    };
  }

  #signed(cell: (field: CsvEntryField) => string | null, location: string) {
    const amount = (field: CsvEntryField): string => {
      const value = (cell(field) ?? '0').trim();
      const match = DECIMAL.exec(value);
      if (!match) throw this.#fail(`${location}: ${field} "${value}" is not a positive decimal`);
      return `${match[1] ?? '0'}.${(match[2] ?? '').padEnd(2, '0')}`;
    };
    if (this.#fieldAt.has('amount') && this.#fieldAt.has('side')) {
      const side = cell('side');
      if (side !== 'debit' && side !== 'credit')
        throw this.#fail(`${location}: side "${side ?? ''}" is not debit or credit`);
      return { side, amount: amount('amount') } as const;
    }
    const debit = amount('debit');
    return Number(debit) !== 0
      ? ({ side: 'debit', amount: debit } as const)
      : ({ side: 'credit', amount: amount('credit') } as const);
  }

  #fail(message: string, cause?: unknown): ConnectorError {
    return new ConnectorError('connector_result_invalid', message, {
      connector: this.connectorName,
      retryable: false,
      cause,
    });
  }
}

/** A date written with the configured pattern (DD, MM, YYYY, YY and literal characters) back to YYYY-MM-DD. */
export function parseDate(value: string, pattern: string, fail: () => Error): string {
  const tokens: string[] = [];
  const source = pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/YYYY|YY|MM|DD/g, (token) => {
    tokens.push(token);
    return token.length === 4 ? '(\\d{4})' : '(\\d{2})';
  });
  const match = new RegExp(`^${source}$`).exec(value.trim());
  if (!match) throw fail();
  const part = (token: string) => match[tokens.indexOf(token) + 1] ?? '';
  const year = tokens.includes('YYYY') ? part('YYYY') : `20${part('YY')}`;
  return `${year}-${part('MM')}-${part('DD')}`;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
}
