/** Errors of leader election, with stable codes; messages are one line and never carry a password. */
import { LEASE_TABLE } from './lease-sql.js';

export type LeaseDatabaseCode =
  | 'state_unreachable'
  | 'state_login_refused'
  | 'state_database_missing'
  | 'state_permission_denied'
  | 'state_query_failed';

/** PostgreSQL (state.url) could not be used for the lease. `permanent` means retrying without a fix is futile. */
export class LeaseDatabaseError extends Error {
  override readonly name = 'LeaseDatabaseError';
  readonly code: LeaseDatabaseCode;
  readonly permanent: boolean;

  constructor(code: LeaseDatabaseCode, message: string, permanent: boolean) {
    super(message);
    this.code = code;
    this.permanent = permanent;
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

function property(error: unknown, name: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[name] : undefined;
}

/** host:port/database of a connection string, for messages: no user, no password, no parameters. */
export function describeStateUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const port = parsed.port === '' ? '5432' : parsed.port;
    return `${parsed.hostname}:${port}${parsed.pathname}`;
  } catch {
    return '(state.url is not a valid postgres:// URL)';
  }
}

function userOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).username) || '(default user)';
  } catch {
    return '(unknown user)';
  }
}

/** Removes the URL's password (raw and decoded) from a database or driver message, wherever it appears. */
function withoutPassword(text: string, url: string): string {
  let password = '';
  try {
    password = new URL(url).password;
  } catch {
    return text.replaceAll(url, '(state.url)');
  }
  let clean = text.replaceAll(url, '(state.url)');
  for (const secret of new Set([password, safeDecode(password)])) {
    if (secret.length > 0) clean = clean.replaceAll(secret, '[redacted]');
  }
  return clean.replace(/\s+/g, ' ').trim();
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * One clear line naming state.url, where it points and what to fix, from whatever pg or the network threw. The
 * password never appears, even when the server or the driver echoes it.
 */
export function leaseDatabaseError(url: string, error: unknown): LeaseDatabaseError {
  if (error instanceof LeaseDatabaseError) return error;
  const where = describeStateUrl(url);
  const raw = error instanceof Error ? error.message : String(error);
  const detail = withoutPassword(raw === '' ? String(property(error, 'code') ?? 'unknown error') : raw, url);
  const code = property(error, 'code');
  if (code === '28P01' || code === '28000') {
    return new LeaseDatabaseError(
      'state_login_refused',
      `state.url: PostgreSQL at ${where} refused the login of user "${userOf(url)}" (${detail}); check the user and password in state.url (or its _file) and pg_hba.conf`,
      true,
    );
  }
  if (code === '3D000') {
    return new LeaseDatabaseError(
      'state_database_missing',
      `state.url: the database at ${where} does not exist (${detail}); create it or fix the database name in state.url`,
      true,
    );
  }
  if (code === '42501') {
    return new LeaseDatabaseError(
      'state_permission_denied',
      `state.url: user "${userOf(url)}" may not create or update the leader lease table at ${where} (${detail}); grant it CREATE on the schema, or SELECT, INSERT and UPDATE on ${LEASE_TABLE}`,
      true,
    );
  }
  if (code === '55P03') {
    return new LeaseDatabaseError(
      'state_query_failed',
      `state.url: the leader lease row at ${where} is held by an open transaction (${detail}); retrying`,
      false,
    );
  }
  if (code === '57014') {
    return new LeaseDatabaseError(
      'state_query_failed',
      `state.url: PostgreSQL at ${where} did not finish a leader lease statement in time (${detail}); retrying`,
      false,
    );
  }
  const unreachable =
    (typeof code === 'string' &&
      (NETWORK_CODES.has(code) || code.startsWith('08') || code.startsWith('57P'))) ||
    /timeout|terminated|Connection closed|connection lost/i.test(raw);
  if (unreachable) {
    return new LeaseDatabaseError(
      'state_unreachable',
      `state.url: cannot reach PostgreSQL at ${where} (${detail}); no instance leads until it is back`,
      false,
    );
  }
  return new LeaseDatabaseError(
    'state_query_failed',
    `state.url: PostgreSQL at ${where} failed a leader lease statement (${detail})`,
    false,
  );
}
