/** Text scrubbing for secrets that reach strings (error messages, URLs, connection strings). */

export const REDACTED = '[REDACTED]';

/** Known secrets shorter than this are not replaced verbatim: they would mangle ordinary text. */
const MIN_KNOWN_SECRET_LENGTH = 4;

const SECRET_KEY_NAMES =
  'password|passwd|pwd|secret|client_secret|webhook_secret|api_key|apikey|access_token|refresh_token|id_token|token|private_key';

/** A secret's value after `key=` or `key:`: quoted, braced, or up to a separator. */
const SECRET_VALUE = `("[^"]*"|'[^']*'|\\{[^}]*\\}|[^\\s;&,"']+)`;

const PATTERNS: ReadonlyArray<readonly [RegExp, string]> = [
  // Authorization header values.
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // API keys of the service, whatever their environment.
  [/\b(svc_(?:test|live)_)[A-Za-z0-9_-]+/g, `$1${REDACTED}`],
  // Webhook signing secrets.
  [/\b(whsec_)[A-Za-z0-9_-]+/g, `$1${REDACTED}`],
  // JSON Web Tokens (access tokens).
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // Passwords in URLs: scheme://user:password@host.
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@]*:)[^\s@/]+@/gi, `$1${REDACTED}@`],
  // JSON members: "password": "value".
  [new RegExp(`("(?:${SECRET_KEY_NAMES})"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'gi'), `$1"${REDACTED}"`],
  // key=value pairs in connection strings and query strings: Password=x; client_secret=y&... (dotted ones too:
  // ssl.key.password=x).
  [new RegExp(`\\b((?:${SECRET_KEY_NAMES})\\s*=\\s*)${SECRET_VALUE}`, 'gi'), `$1${REDACTED}`],
  // key: value, unless the key ends a config path (`api.api_key: environment variable ... is not set`): that is
  // followed by what is wrong with it, not by the secret.
  [new RegExp(`(?<!\\.)\\b((?:${SECRET_KEY_NAMES})\\s*:\\s*)${SECRET_VALUE}`, 'gi'), `$1${REDACTED}`],
];

/**
 * Removes secrets from free text: every known secret verbatim (longest first), then anything shaped like a
 * credential (bearer tokens, service API keys, webhook secrets, JWTs, URL passwords, password=... pairs).
 */
export function scrubSecrets(text: string, knownSecrets: Iterable<string> = []): string {
  let out = text;
  const known = [...new Set(knownSecrets)]
    .filter((s) => s.length >= MIN_KNOWN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  for (const secret of known) out = out.split(secret).join(REDACTED);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

const SECRET_KEY_PATTERN =
  /(password|passwd|pwd|secret|secrets|token|apikey|authorization|cookie|privatekey|credentials?)$/;

/** True for object keys whose values are secrets by name (`apiKey`, `client_secret`, `Authorization`...). */
export function isSecretKeyName(key: string): boolean {
  return SECRET_KEY_PATTERN.test(key.toLowerCase().replace(/[-_.\s]/g, ''));
}
