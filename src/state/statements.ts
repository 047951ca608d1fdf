import type Database from 'better-sqlite3';

/** What the stores use of their database, with prepare() kept per SQL text. */
export type StatementCache = Pick<Database.Database, 'prepare' | 'transaction'>;

/**
 * A store's view of its database that prepares each SQL text once and keeps the statement: preparing costs more
 * than running a small statement, and a flow runs the same few statements for every record. A statement switched
 * to raw mode stays so, so a SQL text must always be used the same way.
 */
export function cachedStatements(db: Database.Database): StatementCache {
  const statements = new Map<string, Database.Statement>();
  return {
    prepare: ((sql: string) => {
      let statement = statements.get(sql);
      if (statement === undefined) {
        statement = db.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    }) as Database.Database['prepare'],
    transaction: db.transaction.bind(db),
  };
}
