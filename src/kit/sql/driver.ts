/** Values a statement may bind. Booleans become 1/0 where the database has no boolean type. */
export type SqlValue = string | number | bigint | boolean | null | Date | Uint8Array;

/** Named parameters; a statement binds only the names it references, extra keys are ignored. */
export type SqlParams = Readonly<Record<string, SqlValue | undefined>>;

export type SqlRow = Readonly<Record<string, unknown>>;

export interface SqlResult {
  readonly rows: SqlRow[];
  /** Rows returned, or rows changed for statements that return none. */
  readonly rowCount: number;
}

export type SqlDialect = 'sqlite' | 'pg' | 'mssql';

/** What the database says about a statement it has prepared but not run. */
export interface StatementShape {
  /** Names of the result columns, or null when the statement returns no result set. */
  readonly columns: readonly string[] | null;
}

export interface SqlExecutor {
  /** Runs one statement written with `:name` or `@name` parameters. */
  query(sql: string, params?: SqlParams): Promise<SqlResult>;
}

/**
 * The one interface every database driver implements. Decimal columns come back as strings (exact); dates as
 * "YYYY-MM-DD" strings where the database has a date type.
 */
export interface SqlDriver extends SqlExecutor {
  readonly dialect: SqlDialect;
  /** Runs `work` in one transaction: commit when it resolves, roll back entirely when it throws. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
  /**
   * Prepares a statement without running it and reports its result columns; throws the database's error when it
   * rejects the statement (unknown table or column, syntax). Changes no data.
   */
  describe(sql: string): Promise<StatementShape>;
  close(): Promise<void>;
}
