/**
 * The credentials of server.auth as one list of named users with roles, and the check of an Authorization header
 * against them. The single token and username of older configs are users too, with the role the config gives them
 * (viewer unless it says operator), so a monitoring login never holds control unless someone wrote so.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

export type Role = 'viewer' | 'operator';

export interface Credential {
  readonly name: string;
  readonly role: Role;
  readonly token?: string | undefined;
  readonly password?: string | undefined;
}

interface AuthConfig {
  readonly token?: string | undefined;
  readonly username?: string | undefined;
  readonly password?: string | undefined;
  readonly role?: Role | undefined;
  readonly users?: readonly Credential[] | undefined;
}

export function credentialsFromConfig(auth: AuthConfig | undefined): readonly Credential[] {
  if (auth === undefined) return [];
  const role = auth.role ?? 'viewer';
  return [
    ...(auth.token === undefined ? [] : [{ name: 'token', role, token: auth.token }]),
    ...(auth.username === undefined ? [] : [{ name: auth.username, role, password: auth.password }]),
    ...(auth.users ?? []),
  ];
}

function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/** Every candidate is compared, so the time taken does not tell which user came close. */
function findMatch(candidates: readonly Credential[], matches: (c: Credential) => boolean) {
  let found: Credential | undefined;
  for (const candidate of candidates) if (matches(candidate) && found === undefined) found = candidate;
  return found;
}

/** The user an Authorization header proves, or undefined (none given, an unknown scheme, a wrong secret). */
export function matchCredential(
  header: string | undefined,
  credentials: readonly Credential[],
): Credential | undefined {
  if (header === undefined) return undefined;
  const [scheme = '', value = ''] = header.trim().split(/\s+/, 2);
  if (scheme.toLowerCase() === 'bearer') {
    return findMatch(credentials, (c) => c.token !== undefined && sameSecret(value, c.token));
  }
  if (scheme.toLowerCase() !== 'basic') return undefined;
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const separator = decoded.indexOf(':');
  if (separator < 0) return undefined;
  const user = decoded.slice(0, separator);
  const password = decoded.slice(separator + 1);
  return findMatch(
    credentials,
    (c) => c.password !== undefined && sameSecret(user, c.name) && sameSecret(password, c.password),
  );
}
