import { PgStateError } from './port.js';
import { describePgUrl, withoutPassword } from './location.js';

/**
 * The state database could not be opened: unreachable, refused credentials, missing database, no permission.
 * The message names `state.url`, where it points (never the password) and what to do.
 */
export class StateDatabaseError extends Error {
  readonly code = 'state_database_unavailable';
  constructor(message: string) {
    super(message);
    this.name = 'StateDatabaseError';
  }
}

function fixFor(error: unknown): string {
  const code = error instanceof PgStateError ? error.code : null;
  switch (true) {
    case code === '28P01' || code === '28000':
      return 'PostgreSQL refused the user or password; check the user and password given in state.url';
    case code === '3D000':
      return 'create it (CREATE DATABASE) or correct the database name in state.url';
    case code === '42501':
      return 'the user lacks a permission the state needs (CREATE on the database, or on the tables); grant it';
    case code === 'ENOTFOUND' || code === 'EAI_AGAIN':
      return 'the host name does not resolve; correct the host in state.url';
    default:
      return 'check that PostgreSQL is running and reachable from this host at the address in state.url';
  }
}

/** Wraps a failure to open the state database into a clear, password-free error. */
export function openFailure(url: string, error: unknown): StateDatabaseError {
  const detail = error instanceof Error ? error.message : String(error);
  return new StateDatabaseError(
    `state.url: cannot use the PostgreSQL state database ${describePgUrl(url)}: ${withoutPassword(detail, url)}; ` +
      fixFor(error),
  );
}
