/**
 * Copies a SQLite state file into an empty PostgreSQL state database (`supply-sync state migrate`). Tables and
 * columns are read from the file itself, so a table added by a later migration is copied too, or, when the
 * PostgreSQL schema has no such table, the copy stops before writing anything.
 */
import type Database from 'better-sqlite3';
import type { SyncSqlPort } from './sql-port.js';

/** Tables that belong to the SQLite file only: its schema history and its single-daemon lock record. */
const NOT_COPIED = new Set(['schema_version', 'daemon_lock']);
/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const BATCH_ROWS = 500;

export interface TableCopy {
  readonly table: string;
  readonly rows: number;
}

/** The target already holds state; copying into it would mix two histories. */
export class TargetNotEmptyError extends Error {
  readonly code = 'state_target_not_empty';
  constructor(readonly tables: readonly TableCopy[]) {
    super(
      `the target database already holds state (${tables.map((t) => `${t.table}: ${t.rows} rows`).join(', ')}); ` +
        'migrate into an empty database',
    );
    this.name = 'TargetNotEmptyError';
  }
}

function sourceTables(source: Database.Database): string[] {
  const rows = source
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as { name: string }[];
  return rows.map((row) => row.name).filter((name) => !NOT_COPIED.has(name));
}

function columnsOf(source: Database.Database, table: string): string[] {
  return (source.pragma(`table_info(${quote(table)})`) as { name: string }[]).map((column) => column.name);
}

function quote(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function targetColumns(target: SyncSqlPort, table: string): Set<string> {
  const rows = target
    .prepare('SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ?')
    .all(table) as { column_name: string }[];
  return new Set(rows.map((row) => row.column_name));
}

function count(target: SyncSqlPort, table: string): number {
  return (target.prepare(`SELECT COUNT(*) AS n FROM ${quote(table)}`).get() as { n: number }).n;
}

/** Rows already in the target's state tables; empty when the target holds no state. */
export function nonEmptyTables(source: Database.Database, target: SyncSqlPort): TableCopy[] {
  return sourceTables(source)
    .map((table) => ({ table, rows: count(target, table) }))
    .filter((table) => table.rows > 0);
}

function copyTable(source: Database.Database, target: SyncSqlPort, table: string): number {
  const order = withoutRowid(source, table) ? '' : 'ORDER BY rowid';
  const columns = columnsOf(source, table);
  const present = targetColumns(target, table);
  const missing = columns.filter((column) => !present.has(column));
  if (present.size === 0 || missing.length > 0) {
    throw new Error(
      present.size === 0
        ? `table ${table} of the state file has no counterpart in the PostgreSQL schema`
        : `table ${table} lacks column(s) ${missing.join(', ')} in the PostgreSQL schema`,
    );
  }
  const list = columns.map(quote).join(', ');
  const rowSql = `(${columns.map(() => '?').join(', ')})`;
  // Insertion order is kept (the ledger's current version is its last inserted row).
  const rows = source.prepare(`SELECT ${list} FROM ${quote(table)} ${order}`).raw().iterate() as IterableIterator<
    unknown[]
  >;
  let batch: unknown[][] = [];
  let copied = 0;
  const flush = () => {
    if (batch.length === 0) return;
    target
      .prepare(`INSERT INTO ${quote(table)} (${list}) VALUES ${batch.map(() => rowSql).join(', ')}`)
      .run(...batch.flat());
    copied += batch.length;
    batch = [];
  };
  for (const row of rows) {
    batch.push(row);
    if (batch.length === BATCH_ROWS) flush();
  }
  flush();
  return copied;
}

/** A WITHOUT ROWID table has no insertion order to keep (nothing reads one from it). */
function withoutRowid(source: Database.Database, table: string): boolean {
  const row = source.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as
    | { sql: string }
    | undefined;
  return /WITHOUT\s+ROWID\s*$/i.test(row?.sql.trim() ?? '');
}

/** Moves each identity sequence past the copied ids, so the next row PostgreSQL numbers does not collide. */
function advanceIdentities(target: SyncSqlPort, table: string): void {
  if (!targetColumns(target, table).has('id')) return;
  const sequence = target.prepare('SELECT pg_get_serial_sequence(?, ?) AS name').get(table, 'id') as {
    name: string | null;
  };
  if (sequence.name === null) return;
  target
    .prepare(`SELECT setval(?, GREATEST((SELECT MAX(id) FROM ${quote(table)}), 1), (SELECT COUNT(*) > 0 FROM ${quote(table)}))`)
    .get(sequence.name);
}

/**
 * Copies every state table in one PostgreSQL transaction: the target ends up with all of the file, or none of it.
 * The caller holds the file's single-daemon lock, so nothing writes the file meanwhile.
 */
export function copySqliteState(source: Database.Database, target: SyncSqlPort): TableCopy[] {
  return target.transaction(() => {
    const occupied = nonEmptyTables(source, target);
    if (occupied.length > 0) throw new TargetNotEmptyError(occupied);
    const copies: TableCopy[] = [];
    for (const table of sourceTables(source)) {
      const rows = copyTable(source, target, table);
      advanceIdentities(target, table);
      const stored = count(target, table);
      if (stored !== rows) throw new Error(`table ${table}: copied ${rows} rows but the target holds ${stored}`);
      copies.push({ table, rows });
    }
    return copies;
  })();
}
