import path from 'node:path';
import * as z from 'zod';
import { markSecret } from '../../config/secret.js';
import type { SqlDriver } from './driver.js';
import { LazyDriver } from './lazy-driver.js';
import { SqliteDriver } from './sqlite-driver.js';

export const sqlConnectionSchema = z.discriminatedUnion('driver', [
  z.strictObject({
    driver: z.literal('sqlite').meta({ description: 'SQLite database file' }),
    file: z
      .string()
      .min(1)
      .meta({
        description: "Database file; relative paths resolve against the config file's folder",
        examples: ['data/erp.db'],
      }),
  }),
  z.strictObject({
    driver: z.literal('pg').meta({ description: 'PostgreSQL' }),
    url: markSecret(z.string().min(1)).meta({
      description: 'Connection URL, postgres://user:password@host:port/database',
      examples: ['${BOOKS_DATABASE_URL}'],
    }),
    schema: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .meta({ description: 'Schema searched for unqualified table names', examples: ['erp'] })
      .optional(),
    pool_size: z
      .number()
      .int()
      .min(1)
      .max(64)
      .meta({ description: 'Most connections open at once', examples: [4] })
      .optional(),
  }),
  z.strictObject({
    driver: z.literal('mssql').meta({ description: 'Microsoft SQL Server' }),
    url: markSecret(z.string().min(1)).meta({
      description:
        'mssql://user:password@host:port/database or an ADO-style "Server=...;Database=...;..." string',
      examples: ['${ERP_DATABASE_URL}'],
    }),
  }),
]);

export type SqlConnectionConfig = z.output<typeof sqlConnectionSchema>;

/** Opens the configured driver; `name` (the connector's name in the config) labels its errors. */
export function openSqlDriver(config: SqlConnectionConfig, baseDir: string, name: string): SqlDriver {
  switch (config.driver) {
    case 'sqlite':
      return new SqliteDriver(path.resolve(baseDir, config.file), { name });
    case 'pg':
      return new LazyDriver('pg', async () => {
        const { PgDriver } = await import('./pg-driver.js');
        return new PgDriver({
          url: config.url,
          name,
          ...(config.schema === undefined ? {} : { schema: config.schema }),
          ...(config.pool_size === undefined ? {} : { poolSize: config.pool_size }),
        });
      });
    case 'mssql':
      return new LazyDriver('mssql', async () => {
        const { MssqlDriver } = await import('./mssql-driver.js');
        return new MssqlDriver(config.url, { name });
      });
  }
}

/** Where the connection points, without credentials, for checks and error messages. */
export function describeConnection(config: SqlConnectionConfig): string {
  if (config.driver === 'sqlite') return `sqlite file ${config.file}`;
  return `${config.driver} ${redactUrl(config.url)}`;
}

function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}${parsed.port === '' ? '' : `:${parsed.port}`}${parsed.pathname}`;
  } catch {
    const server = /(?:server|data source)\s*=\s*([^;]+)/i.exec(url)?.[1];
    return server === undefined ? '(connection string)' : server.trim();
  }
}
