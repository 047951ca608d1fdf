/** Keeps known secrets (API key, client secret, access tokens) out of error messages. */
export class Redactor {
  private readonly secrets = new Set<string>();

  /** Registers a secret; short values are ignored so ordinary words are never masked. */
  add(secret: string | undefined): void {
    if (secret !== undefined && secret.length >= 8) this.secrets.add(secret);
  }

  redact(text: string): string {
    let result = text;
    for (const secret of this.secrets) result = result.split(secret).join('[redacted]');
    return result;
  }
}

/** Paths to hand to pino's `redact` option when building the logger the client is given. */
export const CLIENT_LOG_REDACT_PATHS: readonly string[] = [
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  'apiKey',
  '*.apiKey',
  'clientSecret',
  '*.clientSecret',
  'client_secret',
  '*.client_secret',
  'access_token',
  '*.access_token',
  'token',
  '*.token',
];
