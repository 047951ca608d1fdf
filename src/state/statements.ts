import type { SyncSqlPort, SyncStatement } from './sql-port.js';

/** What the stores use of their database, with prepare() kept per SQL text. */
export type StatementCache = Pick<SyncSqlPort, 'prepare' | 'transaction'>;

/**
 * A store's view of its database that prepares each SQL text once and keeps the statement: preparing costs more
 * than running a small statement, and a flow runs the same few statements for every record. A statement switched
 * to raw mode stays so, so a SQL text must always be used the same way.
 */
export function cachedStatements(db: SyncSqlPort): StatementCache {
  const statements = new Map<string, SyncStatement>();
  return {
    prepare: (sql: string) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    transaction: db.transaction.bind(db),
  };
}

/** The parameters of an optional filter: none when it is absent (the SQL then leaves the condition out). */
export function optional<T>(value: T | undefined): T[] {
  return value === undefined ? [] : [value];
}
