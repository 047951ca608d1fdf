import { ConnectorError } from '../../connector-contract/errors.js';
import type { SqlDialect } from './driver.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'ESOCKET',
  'ETIMEOUT',
  'ECONNCLOSED',
  'EINSTLOOKUP',
]);
/** PostgreSQL SQLSTATEs worth retrying: connection exceptions, serialization failures, deadlocks, overload. */
// 55P03 lock_not_available and 57014 query_canceled come from our lock and statement timeouts: the next run retries.
const PG_RETRYABLE = [/^08/, /^40001$/, /^40P01$/, /^53/, /^55P03$/, /^57014$/, /^57P0[123]$/];
/** SQL Server error numbers worth retrying: deadlock victim, lock timeout, database starting or unavailable. */
const MSSQL_RETRYABLE = new Set([1205, 1222, 4060, 40197, 40501, 40613, 49918, 49919, 49920]);
const SQLITE_RETRYABLE = new Set([
  'SQLITE_BUSY',
  'SQLITE_LOCKED',
  'SQLITE_BUSY_SNAPSHOT',
  'SQLITE_BUSY_TIMEOUT',
]);

function property(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

function isUnreachable(error: unknown): boolean {
  const code = property(error, 'code');
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
  if (property(error, 'name') === 'ConnectionError') return true;
  const cause = property(error, 'originalError') ?? property(error, 'cause');
  return cause !== undefined && cause !== error && isUnreachable(cause);
}

/** Whether trying the same statement again later can succeed. Data on the error, decided here once. */
export function isRetryableSqlError(dialect: SqlDialect, error: unknown): boolean {
  if (isUnreachable(error)) return true;
  const code = property(error, 'code');
  switch (dialect) {
    case 'pg':
      return typeof code === 'string' && PG_RETRYABLE.some((pattern) => pattern.test(code));
    case 'mssql': {
      const number = property(error, 'number');
      return typeof number === 'number' && MSSQL_RETRYABLE.has(number);
    }
    case 'sqlite':
      return typeof code === 'string' && SQLITE_RETRYABLE.has(code);
  }
}

/**
 * Wraps a database error in a ConnectorError with a stable code and a retryable flag. The database's message is
 * kept (it names tables, columns, constraints); bound values are never part of it.
 */
export function toConnectorError(dialect: SqlDialect, connector: string, error: unknown): ConnectorError {
  if (error instanceof ConnectorError) return error;
  const unreachable = isUnreachable(error);
  const message = error instanceof Error ? error.message : String(error);
  return new ConnectorError(
    unreachable ? 'connector_unreachable' : 'connector_statement_failed',
    `${connector === dialect ? dialect : `${connector} (${dialect})`}: ${message}`,
    { connector, retryable: isRetryableSqlError(dialect, error), cause: error },
  );
}
