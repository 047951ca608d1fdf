/**
 * The few places where the state's SQL differs between backends. Everything else is written once, in the SQL both
 * SQLite and PostgreSQL accept (ON CONFLICT upserts, RETURNING, `?` placeholders rewritten by the port).
 */
export type StateBackend = 'sqlite' | 'postgres';

export interface StateDialect {
  readonly backend: StateBackend;
  /** A column that orders a table's rows by insertion: SQLite's rowid, an identity column elsewhere. */
  readonly insertionOrder: string;
}

export const SQLITE_DIALECT: StateDialect = { backend: 'sqlite', insertionOrder: 'rowid' };
export const POSTGRES_DIALECT: StateDialect = { backend: 'postgres', insertionOrder: 'seq' };
