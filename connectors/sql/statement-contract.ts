import type { SqlValue } from '../../src/kit/sql/driver.js';

/**
 * What the connector binds to one configured statement and which result columns it reads. Each erp-*.ts module
 * declares the contracts of its statements next to the code that binds and reads them, and that code is typed by
 * them: binding a parameter or reading a column a contract does not list does not compile. The pre-flight check
 * (`doctor`, daemon start, `config validate`) reads the same contracts, so the check and the runtime cannot drift.
 */
export interface StatementContract<
  R extends string = string,
  O extends string = string,
  P extends string = string,
> {
  /** The statement's key under `statements`, e.g. `orders.insert_line`. */
  readonly key: string;
  /** Parameters the connector binds; a statement may use any subset of them. */
  readonly params: readonly P[];
  /** Result columns the connector reads and that must be returned. */
  readonly columns: readonly R[];
  /** Result columns read when present. */
  readonly optionalColumns: readonly O[];
  /** The statement may return no result at all (a write); when it does return one, `columns` are required. */
  readonly resultOptional: boolean;
  /** Further result columns are passed through to the flow, so no returned column is unexpected. */
  readonly passesOtherColumns: boolean;
}

export function statementContract<
  const P extends string = never,
  const R extends string = never,
  const O extends string = never,
>(
  key: string,
  spec: {
    readonly params?: readonly P[];
    readonly columns?: readonly R[];
    readonly optionalColumns?: readonly O[];
    readonly resultOptional?: boolean;
    readonly passesOtherColumns?: boolean;
  },
): StatementContract<R, O, P> {
  const columns = spec.columns ?? [];
  const optionalColumns = spec.optionalColumns ?? [];
  return {
    key,
    params: spec.params ?? [],
    columns,
    optionalColumns,
    // A statement whose result nothing reads is a write: it may return nothing.
    resultOptional: spec.resultOptional ?? (columns.length === 0 && optionalColumns.length === 0),
    passesOtherColumns: spec.passesOtherColumns ?? false,
  };
}

/** The parameters of one call: exactly the names the contract lists (a missing or extra name does not compile). */
export function bound<P extends string>(
  _contract: StatementContract<string, string, P>,
  params: Readonly<Record<NoInfer<P>, SqlValue>>,
): Readonly<Record<P, SqlValue>> {
  return params;
}
