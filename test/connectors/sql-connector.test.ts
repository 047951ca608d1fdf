import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ZodError } from 'zod';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import { PluginRegistry } from '../../src/plugin/index.js';
import { capabilityOf } from '../support/capability.js';
import { mssqlConfig } from '../../src/kit/sql/mssql-url.js';
import { PgDriver } from '../../src/kit/sql/pg-driver.js';
import { SqliteDriver } from '../../src/kit/sql/sqlite-driver.js';
import { sqlConnectorDefinition } from '../../connectors/sql/sql-connector.js';
import { sqlConnectionSchema } from '../../src/kit/sql/connection.js';

describe('sql connector definition', () => {
  let dir: string;
  const registry = new PluginRegistry().register(sqlConnectorDefinition);
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'supply-sync-sql-connector-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('offers only the capabilities its config enables', async () => {
    const connector = await registry.createConnector(
      'sql',
      {
        connection: { driver: 'sqlite', file: 'books.sqlite' },
        journal: { table: 'gl', columns: { account: 'acc', amount: 'amt' }, create_tables: true },
      },
      { name: 'books', baseDir: dir },
    );
    try {
      expect(Object.keys(connector.capabilities)).toEqual(['accountingWriter']);
      expect(() => capabilityOf(connector, 'orderSink', 'books')).toThrow(
        /connector "books" \(type sql\) does not offer orderSink/,
      );
      expect((await connector.check()).map((c) => [c.name, c.status])).toEqual([
        ['database reachable', 'ok'],
      ]);
    } finally {
      await connector.close();
    }
  });

  it('rejects unknown keys and a column-mode batch key without its column', async () => {
    const context = { name: 'books', baseDir: dir };
    await expect(
      registry.createConnector(
        'sql',
        { connection: { driver: 'sqlite', file: 'x.sqlite', flie: 1 } },
        context,
      ),
    ).rejects.toBeInstanceOf(ZodError);
    const error: unknown = await registry
      .createConnector(
        'sql',
        {
          connection: { driver: 'sqlite', file: 'x.sqlite' },
          journal: { table: 'gl', columns: { account: 'acc' }, batch_key_store: 'column' },
        },
        context,
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ZodError);
    expect((error as ZodError).issues).toContainEqual(
      expect.objectContaining({
        path: ['journal', 'columns', 'batch_key'],
        message: 'batch_key_store "column" needs columns.batch_key',
      }),
    );
    await expect(registry.createConnector('sqll', {}, context)).rejects.toBeInstanceOf(ConnectorError);
  });

  it('reports an unreachable database in check() without its password', async () => {
    const connector = await registry.createConnector(
      'sql',
      { connection: { driver: 'pg', url: 'postgres://app:hunter2@127.0.0.1:1/erp' } },
      { name: 'erp', baseDir: dir },
    );
    try {
      const [result] = await connector.check();
      expect(result).toMatchObject({ name: 'database reachable', status: 'fail' });
      expect(result?.detail).toContain('127.0.0.1:1/erp');
      expect(JSON.stringify(result)).not.toContain('hunter2');
    } finally {
      await connector.close();
    }
  });

  it('marks connection URLs as secret for the config loader', () => {
    const [sqlite, pg, mssql] = sqlConnectionSchema.options;
    expect(z.globalRegistry.get(pg.shape.url)?.['secret']).toBe(true);
    expect(z.globalRegistry.get(mssql.shape.url)?.['secret']).toBe(true);
    expect(z.globalRegistry.get(sqlite.shape.file)?.['secret']).toBeUndefined();
  });
});

describe('PluginRegistry', () => {
  it('refuses a type registered twice and lists the known types for an unknown one', async () => {
    const registry = new PluginRegistry().register(sqlConnectorDefinition);
    expect(() => registry.register(sqlConnectorDefinition)).toThrow(/registered twice/);
    await expect(registry.createConnector('sqll', {}, { name: 'x', baseDir: '.' })).rejects.toThrow(
      /unknown connector type "sqll"; known types: sql/,
    );
  });
});

describe('mssqlConfig', () => {
  it('parses an mssql:// URL and passes ADO strings through', () => {
    expect(
      mssqlConfig('mssql://sa:p%40ss@db.local:1433/erp?trustServerCertificate=true&instance=SQLEXPRESS'),
    ).toEqual({
      server: 'db.local',
      port: 1433,
      user: 'sa',
      password: 'p@ss',
      database: 'erp',
      options: { encrypt: true, trustServerCertificate: true, instanceName: 'SQLEXPRESS' },
    });
    const ado = 'Server=db;Database=erp;User Id=sa;Password=x';
    expect(mssqlConfig(ado)).toBe(ado);
  });
});

describe('driver errors', () => {
  it('marks an unreachable server as retryable', async () => {
    const driver = new PgDriver({ url: 'postgres://app:hunter2@127.0.0.1:1/erp', name: 'erp' });
    try {
      const error: unknown = await driver.query('SELECT 1 AS ok').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(ConnectorError);
      expect(error).toMatchObject({ code: 'connector_unreachable', retryable: true, connector: 'erp' });
      expect(String((error as Error).message)).not.toContain('hunter2');
    } finally {
      await driver.close();
    }
  });

  it('marks a locked SQLite database as retryable and leaves the holder unaffected', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'supply-sync-busy-'));
    const file = path.join(dir, 'erp.sqlite');
    const holder = new SqliteDriver(file);
    const other = new SqliteDriver(file, { busyTimeoutMs: 0 });
    try {
      await holder.query('CREATE TABLE t (v TEXT)');
      let release: () => void = () => undefined;
      const released = new Promise<void>((resolve) => (release = resolve));
      const holding = holder.transaction(async (tx) => {
        await tx.query(`INSERT INTO t (v) VALUES ('held')`);
        await released;
      });
      const error: unknown = await other
        .query(`INSERT INTO t (v) VALUES ('blocked')`)
        .catch((caught: unknown) => caught);
      release();
      await holding;
      expect(error).toMatchObject({ code: 'connector_statement_failed', retryable: true });
      expect((await other.query('SELECT v FROM t')).rows).toEqual([{ v: 'held' }]);
    } finally {
      await holder.close();
      await other.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
