/** Where a PostgreSQL URL points, without its password (user, host, port, database): safe for messages. */
export function describePgUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username === '' ? '' : `${decodeURIComponent(parsed.username)}@`;
    const port = parsed.port === '' ? '' : `:${parsed.port}`;
    return `postgres://${user}${parsed.hostname}${port}${parsed.pathname}`;
  } catch {
    return '(the configured PostgreSQL URL)';
  }
}

/** Removes the URL's password, and the password on its own, from a text (a driver message may quote either). */
export function withoutPassword(text: string, url: string): string {
  let password = '';
  try {
    password = decodeURIComponent(new URL(url).password);
  } catch {
    return text.split(url).join(describePgUrl(url));
  }
  let safe = text.split(url).join(describePgUrl(url));
  if (password.length > 0) safe = safe.split(password).join('[redacted]');
  return safe;
}
