/**
 * Which columns name a row of the journal table, so a reconcile difference points at a row a person can find with
 * a WHERE: the mapped `batch_key` and `line_number` columns (line numbers restart in every batch, so a line number
 * alone names no row), else the table's primary key as the database declares it, else SQLite's rowid; null when
 * nothing tells the rows apart. The rows are read ordered by that key, never by position: a row's name stays the
 * same after an UPDATE or a DELETE of another row.
 */
import type { SqlDriver, SqlRow } from '../../src/kit/sql/driver.js';
import type { JournalTableConfig } from './journal-config.js';

export interface LineKey {
  /** The key columns, in order. */
  readonly columns: readonly string[];
  readonly source: 'line_number' | 'primary key' | 'rowid';
}

/** The table's split into schema and name, for the catalog queries. */
function tableParts(table: string): { schema: string | null; name: string } {
  const dot = table.indexOf('.');
  return dot < 0
    ? { schema: null, name: table }
    : { schema: table.slice(0, dot), name: table.slice(dot + 1) };
}

async function primaryKey(driver: SqlDriver, table: string): Promise<string[]> {
  const { schema, name } = tableParts(table);
  if (driver.dialect === 'sqlite') {
    const { rows } = await driver.query(
      `PRAGMA ${schema === null ? '' : `"${schema}".`}table_info("${name}")`,
    );
    return rows
      .filter((row) => Number(row['pk']) > 0)
      .sort((a, b) => Number(a['pk']) - Number(b['pk']))
      .map((row) => String(row['name']));
  }
  const sql =
    driver.dialect === 'pg'
      ? `SELECT a.attname AS name FROM pg_index i
           JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
         WHERE i.indisprimary AND i.indrelid = CAST(:table AS regclass)
         ORDER BY array_position(i.indkey, a.attnum)`
      : `SELECT c.name AS name FROM sys.indexes i
           JOIN sys.index_columns ic ON ic.object_id = i.object_id AND ic.index_id = i.index_id
           JOIN sys.columns c ON c.object_id = ic.object_id AND c.column_id = ic.column_id
         WHERE i.is_primary_key = 1 AND i.object_id = OBJECT_ID(:table) ORDER BY ic.key_ordinal`;
  const { rows } = await driver.query(sql, { table });
  return rows.map((row: SqlRow) => String(row['name']));
}

/** The line key of the configured journal table: batch and line first, then the primary key, then SQLite's rowid. */
export async function lineKeyOf(driver: SqlDriver, config: JournalTableConfig): Promise<LineKey | null> {
  const { line_number: lineNumber, batch_key: batchKey } = config.columns;
  if (lineNumber !== undefined && batchKey !== undefined) {
    return { columns: [batchKey, lineNumber], source: 'line_number' };
  }
  const declared = await primaryKey(driver, config.table);
  if (declared.length > 0) return { columns: declared, source: 'primary key' };
  return driver.dialect === 'sqlite' ? { columns: ['rowid'], source: 'rowid' } : null;
}
