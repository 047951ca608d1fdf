import { ConnectorError } from '../connector-contract/errors.js';
/** One result row, keyed by column name (a SQL row, or a CSV record). */
export type SqlRow = Readonly<Record<string, unknown>>;

/**
 * The columns a statement's contract lets a reader take: `R` required, `O` read when present. A SQL connector's
 * statement contracts have this shape; CSV sources name themselves with a string instead.
 */
export interface ColumnContract<R extends string, O extends string> {
  readonly key: string;
  readonly columns: readonly R[];
  readonly optionalColumns: readonly O[];
}

const DECIMAL = /^-?\d+(\.\d+)?$/;
const DATE = /^\d{4}-\d{2}-\d{2}/;

/**
 * Reads typed values out of a result row, with errors that name the statement and column the user must fix.
 * Values are never echoed in errors: rows may hold personal or commercial data. Typed by the statement's contract:
 * required reads take a column the contract requires (R), optional reads one it lists at all (R or O).
 */
export class RowReader<R extends string = string, O extends string = string> {
  private readonly statement: string;

  constructor(
    private readonly connector: string,
    /** The statement's contract, or a name for sources without one (CSV files). */
    source: ColumnContract<R, O> | string,
    private readonly row: SqlRow,
  ) {
    this.statement = typeof source === 'string' ? source : source.key;
  }

  text(column: R): string {
    const value = this.#toText(column, this.#get(column));
    if (value === null) throw this.#invalid(column, 'a non-empty value');
    return value;
  }

  /** Optional columns may be left out of the SELECT entirely. */
  optionalText(column: R | O): string | null {
    return this.#toText(column, this.row[column]);
  }

  decimal(column: R): string {
    const value = this.#toDecimal(column, this.#get(column));
    if (value === null) throw this.#invalid(column, 'a decimal number');
    return value;
  }

  optionalDecimal(column: R | O): string | null {
    return this.#toDecimal(column, this.row[column]);
  }

  integer(column: R): number {
    const value = this.#get(column);
    const number = typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isSafeInteger(number))
      throw this.#invalid(column, 'an integer');
    return number;
  }

  boolean(column: R | O, fallback: boolean): boolean {
    const value = this.row[column];
    if (value === null || value === undefined) return fallback;
    if (typeof value === 'boolean') return value;
    if (value === 1 || value === 0) return value === 1;
    if (typeof value === 'string') {
      const normalized = value.trim().toLowerCase();
      if (['1', 'y', 'yes', 'true', 't'].includes(normalized)) return true;
      if (['0', 'n', 'no', 'false', 'f'].includes(normalized)) return false;
    }
    throw this.#invalid(column, 'a boolean (1/0, Y/N, true/false)');
  }

  date(column: R): string {
    const value = this.#toDate(column, this.#get(column));
    if (value === null) throw this.#invalid(column, 'a date');
    return value;
  }

  optionalDate(column: R | O): string | null {
    return this.#toDate(column, this.row[column]);
  }

  optionalInteger(column: R | O): number | null {
    const value = this.row[column];
    if (value === null || value === undefined || value === '') return null;
    const number = typeof value === 'string' || typeof value === 'bigint' ? Number(value) : value;
    if (typeof number !== 'number' || !Number.isSafeInteger(number))
      throw this.#invalid(column, 'an integer');
    return number;
  }

  #toText(column: string, value: unknown): string | null {
    if (value === null || value === undefined) return null;
    if (typeof value === 'string') return value === '' ? null : value;
    if (typeof value === 'number' || typeof value === 'bigint') return String(value);
    if (value instanceof Date) return value.toISOString();
    throw this.#invalid(column, 'text');
  }

  #toDecimal(column: string, value: unknown): string | null {
    if (value === null || value === undefined || value === '') return null;
    const text = typeof value === 'number' || typeof value === 'bigint' ? String(value) : value;
    if (typeof text !== 'string' || !DECIMAL.test(text.trim()))
      throw this.#invalid(column, 'a decimal number');
    return text.trim();
  }

  #toDate(column: string, value: unknown): string | null {
    if (value === null || value === undefined || value === '') return null;
    if (value instanceof Date) return value.toISOString().slice(0, 10);
    if (typeof value === 'string' && DATE.test(value)) return value.slice(0, 10);
    throw this.#invalid(column, 'a date (YYYY-MM-DD)');
  }

  #get(column: string): unknown {
    if (!(column in this.row)) {
      throw new ConnectorError(
        'connector_result_invalid',
        `statement ${this.statement} must return a column named "${column}" (alias it with AS ${column})`,
        { connector: this.connector, retryable: false },
      );
    }
    return this.row[column];
  }

  #invalid(column: string, expected: string): ConnectorError {
    return new ConnectorError(
      'connector_result_invalid',
      `statement ${this.statement} returned an unusable value in column "${column}": expected ${expected}`,
      { connector: this.connector, retryable: false },
    );
  }
}

export function readRows<T, R extends string, O extends string>(
  connector: string,
  source: ColumnContract<R, O> | string,
  rows: readonly SqlRow[],
  read: (reader: RowReader<R, O>) => T,
): T[] {
  return rows.map((row) => read(new RowReader(connector, source, row)));
}

/** The reader a statement's contract allows. */
export type ReaderOf<C> = C extends ColumnContract<infer R, infer O> ? RowReader<R, O> : never;
