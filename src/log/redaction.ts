/** Redaction paths for pino: what is a secret by where it sits in a log object. */

const SECRET_FIELDS = [
  'authorization',
  'Authorization',
  'proxy-authorization',
  'cookie',
  'set-cookie',
  'service-signature',
  'apiKey',
  'api_key',
  'token',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'clientSecret',
  'client_secret',
  'secret',
  'secrets',
  'webhookSecret',
  'webhook_secret',
  'password',
  'connectionString',
  'connection_string',
] as const;

const CONTAINERS = ['headers', 'req.headers', 'request.headers', 'res.headers', 'response.headers'] as const;

function pathFor(field: string): string {
  return /^[A-Za-z_$][\w$]*$/.test(field) ? field : `["${field}"]`;
}

function join(prefix: string, field: string): string {
  const tail = pathFor(field);
  return tail.startsWith('[') ? `${prefix}${tail}` : `${prefix}.${tail}`;
}

/**
 * Default pino redaction paths (top level, one level down, and under request/response headers) plus the extra
 * paths derived from the config schema's secret fields.
 */
export function buildRedactPaths(extraPaths: Iterable<string> = []): string[] {
  const paths = new Set<string>();
  for (const field of SECRET_FIELDS) {
    paths.add(pathFor(field));
    paths.add(join('*', field));
    for (const container of CONTAINERS) paths.add(join(container, field));
  }
  for (const extra of extraPaths) paths.add(normalizePath(extra));
  return [...paths];
}

/**
 * Config paths arrive dot-joined (`connectors.erp-main.password`); pino needs bracket notation for segments that
 * are not identifiers, and rejects the whole logger otherwise.
 */
function normalizePath(path: string): string {
  if (path.includes('[')) return path;
  const [first = '', ...rest] = path.split('.');
  return rest.reduce(
    (prefix, segment) => (segment === '*' ? `${prefix}.*` : join(prefix, segment)),
    pathFor(first),
  );
}
