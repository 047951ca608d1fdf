/**
 * Reads a journal table back for reconciliation: SELECT of the mapped columns and the line key (line-key.ts) ordered
 * by it, nothing else; each row is named by its key, never by its position in the result. A row's amount is its
 * `amount` column with its `side`, or its `debit` / `credit` columns; the rest is read when the config maps it.
 * A table where nothing tells the rows apart is read all the same, with a note saying so for the report.
 */
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { BookEntry, BookRead, JournalReadBack } from '../../src/connector-contract/journal-read.js';
import { quoteIdentifier } from '../../src/kit/sql/dialect.js';
import type { SqlDriver, SqlRow } from '../../src/kit/sql/driver.js';
import { formatMoney } from '../../src/shared/decimal.js';
import type { JournalColumnField, JournalTableConfig } from './journal-config.js';
import { lineKeyOf, type LineKey } from './line-key.js';
import { settingOf, type JournalOrigin } from './journal-target.js';

const DECIMAL = /^(-?)(\d+)(?:\.(\d{1,2}))?$/;

export class SqlJournalReadBack implements JournalReadBack {
  constructor(
    private readonly driver: SqlDriver,
    private readonly config: JournalTableConfig,
    private readonly origin: JournalOrigin,
  ) {}

  bookReference(reference: string): Promise<string | null> {
    return Promise.resolve(reference);
  }

  async readBooks(): Promise<BookRead> {
    const columns = this.config.columns;
    const hasAmount = columns.amount !== undefined && columns.side !== undefined;
    const hasDebitCredit = columns.debit !== undefined && columns.credit !== undefined;
    if (columns.account === undefined || (!hasAmount && !hasDebitCredit)) {
      throw this.#fail(
        `journal table ${this.config.table} cannot be read back: map journal.columns.account and either ` +
          'amount with side, or debit and credit',
      );
    }
    let rows: SqlRow[];
    let key: LineKey | null;
    try {
      key = await lineKeyOf(this.driver, this.config);
      ({ rows } = await this.driver.query(this.#selectSql(key)));
    } catch (error) {
      throw this.#fail(`journal table ${this.config.table} cannot be read: ${messageOf(error)}`, error);
    }
    return {
      fields: {
        date: columns.date !== undefined,
        valueDate: columns.value_date !== undefined,
        period: columns.period !== undefined,
        reference: columns.reference !== undefined,
      },
      entries: rows.map((row) => this.#entry(row, this.#location(row, key))),
      sources: [this.config.table],
      notes: key === null ? [this.#noKeyNote()] : [],
    };
  }

  /** Said in the report: a name made of what a row holds may fit another row too. */
  #noKeyNote(): string {
    const { table } = this.config;
    return (
      `no key tells the rows of ${table} apart (line numbers restart in every batch, ${settingOf(this.origin, 'journal.columns.batch_key')} ` +
      'is not mapped and the table has no primary key): each row is named by what it holds, which another row may ' +
      'hold too. Map journal.columns.batch_key to a column of the table, or give the table a primary key'
    );
  }

  /** The mapped columns and the line key, ordered by the key (by every column read when the table has none). */
  #selectSql(key: LineKey | null): string {
    const mapped = Object.entries(this.config.columns).filter(
      (pair): pair is [JournalColumnField, string] => !!pair[1],
    );
    const fields = mapped.map(([field, column]) => `${this.#q(column)} AS ${this.#q(field)}`);
    const keys = (key?.columns ?? []).map((column, i) => `${this.#q(column)} AS ${this.#q(`line_key_${i}`)}`);
    const order =
      key === null ? mapped.map(([, column]) => this.#q(column)) : key.columns.map((c) => this.#q(c));
    return `SELECT ${[...fields, ...keys].join(', ')} FROM ${this.#q(this.config.table)} ORDER BY ${order.join(', ')}`;
  }

  /** Where a person finds the row: its key columns and values, or (a table without a key) what it holds. */
  #location(row: SqlRow, key: LineKey | null): string {
    const { table } = this.config;
    if (key !== null) {
      const named = key.columns.map((column, i) => `${column} ${String(row[`line_key_${i}`])}`);
      return `${table} ${named.join(', ')}`;
    }
    const held = (
      ['batch_key', 'line_number', 'reference', 'account', 'side', 'amount', 'debit', 'credit'] as const
    )
      .filter((field) => this.config.columns[field] !== undefined && row[field] !== null)
      .map((field) => `${this.config.columns[field] ?? field} ${String(row[field])}`);
    return `${table} row with ${held.join(', ')} (no key tells its rows apart: see the note)`;
  }

  #entry(row: SqlRow, location: string): BookEntry {
    const text = (field: JournalColumnField): string | null => {
      const value = row[field];
      return value === null || value === undefined ? null : String(value).trim();
    };
    const signed = this.#signedAmount(row, location);
    const ids = text('source_ids');
    return {
      location,
      batchKey: text('batch_key'),
      sourceIds: ids === null ? null : ids.split(/[,\s]+/).filter((id) => id !== ''),
      side: signed.side,
      account: text('account') ?? '',
      amount: formatMoney(signed.amount),
      date: isoDate(row['date']),
      valueDate: isoDate(row['value_date']),
      period: text('period'),
      reference: text('reference'),
    };
  }

  #signedAmount(row: SqlRow, location: string): { side: 'debit' | 'credit'; amount: bigint } {
    if (this.config.columns.amount !== undefined && this.config.columns.side !== undefined) {
      const side = String(row['side']).trim();
      if (side !== 'debit' && side !== 'credit')
        throw this.#fail(`${location}: side "${side}" is not debit or credit`);
      return { side, amount: this.#units(row['amount'], location) };
    }
    const debit = this.#units(row['debit'] ?? '0', location);
    const credit = this.#units(row['credit'] ?? '0', location);
    return debit !== 0n ? { side: 'debit', amount: debit } : { side: 'credit', amount: credit };
  }

  #units(value: unknown, location: string): bigint {
    const text = typeof value === 'number' ? value.toFixed(2) : String(value).trim();
    const match = DECIMAL.exec(text);
    if (!match) throw this.#fail(`${location}: amount "${text}" is not a decimal`);
    const units = BigInt(match[2] ?? '0') * 100n + BigInt((match[3] ?? '').padEnd(2, '0'));
    return match[1] === '-' ? -units : units;
  }

  #q(name: string): string {
    return quoteIdentifier(this.driver.dialect, name);
  }

  #fail(message: string, cause?: unknown): ConnectorError {
    return new ConnectorError('connector_result_invalid', message, {
      connector: this.origin.connector,
      retryable: false,
      cause,
    });
  }
}

/** A date column as YYYY-MM-DD, whatever type the driver returned it in. */
function isoDate(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Date) return value.toISOString().slice(0, 10);
  const text = String(value).trim();
  return /^\d{4}-\d{2}-\d{2}/.test(text) ? text.slice(0, 10) : text;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
