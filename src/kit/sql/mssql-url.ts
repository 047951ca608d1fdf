import type mssql from 'mssql';

/**
 * Turns `mssql://user:password@host:port/database?encrypt=false&trustServerCertificate=true&instance=NAME` into
 * the mssql package's config; ADO-style strings ("Server=...;Database=...") are passed through unchanged.
 */
export function mssqlConfig(url: string): mssql.config | string {
  if (!/^(mssql|sqlserver):\/\//i.test(url)) return url;
  const parsed = new URL(url);
  const flag = (name: string, fallback: boolean) => {
    const value = parsed.searchParams.get(name);
    return value === null ? fallback : value === 'true' || value === '1';
  };
  const instance = parsed.searchParams.get('instance');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  return {
    server: parsed.hostname,
    ...(parsed.port === '' ? {} : { port: Number(parsed.port) }),
    user: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
    ...(database === '' ? {} : { database }),
    options: {
      encrypt: flag('encrypt', true),
      trustServerCertificate: flag('trustServerCertificate', false),
      ...(instance === null ? {} : { instanceName: instance }),
    },
  };
}
