import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { ZodError } from 'zod';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { JournalBatch } from '../../src/connector-contract/journal.js';
import { PluginRegistry } from '../../src/plugin/index.js';
import { capabilityOf } from '../support/capability.js';
import { mssqlConfig } from '../../src/kit/sql/mssql-url.js';
import { PgDriver } from '../../src/kit/sql/pg-driver.js';
import { SqliteDriver } from '../../src/kit/sql/sqlite-driver.js';
import { sqlConnectorDefinition } from '../../connectors/sql/sql-connector.js';
import { sqlConnectionSchema } from '../../src/kit/sql/connection.js';
import { PG_URL, postgresProbe } from '../support/postgres.js';

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
        ['journal table', 'ok'],
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

const pgProbe = await postgresProbe();

/** The journal block of the shipped example, on a schema nobody created. */
function journalInMissingSchema(schema: string): Record<string, unknown> {
  return {
    table: `${schema}.import_lines`,
    batch_key_table: `${schema}.supply_sync_batches`,
    columns: {
      batch_key: 'batch',
      line_number: 'line_no',
      side: 'side',
      account: 'account',
      amount: 'amount',
    },
    create_tables: true,
  };
}

const BATCH: JournalBatch = {
  batchKey: 'je-1',
  entries: [
    {
      lineNumber: 1,
      side: 'debit',
      account: '61000',
      counterAccount: null,
      amount: '10.00',
      currency: 'ILS',
      date: '2026-03-02',
      valueDate: '2026-03-02',
      period: '2026-03',
      reference: 'INV-1',
      reference2: null,
      branchCode: null,
      movementType: null,
      description: 'invoice INV-1',
      sourceIds: ['jl_1'],
    },
  ],
};

describe.each([
  {
    dialect: 'pg',
    skip: !pgProbe.available,
    connection: () => ({ driver: 'pg', url: PG_URL }),
    fix: (schema: string) => `CREATE SCHEMA ${schema}`,
  },
  {
    dialect: 'sqlite',
    skip: false,
    connection: () => ({ driver: 'sqlite', file: 'books.sqlite' }),
    fix: () => 'journal.table: import_lines',
  },
])('journal.create_tables on a $dialect schema that does not exist', ({ skip, connection, fix }) => {
  let dir: string;
  const registry = new PluginRegistry().register(sqlConnectorDefinition);
  const schema = `nosuch_${process.pid}_${Math.floor(Math.random() * 1e6)}`;
  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'supply-sync-sql-schema-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(skip)(
    'doctor fails the journal table and the write names the file, the key and the fix',
    async () => {
      const configFile = path.join(dir, 'books.yaml');
      const connector = await registry.createConnector(
        'sql',
        { connection: connection(), journal: journalInMissingSchema(schema) },
        { name: 'books', baseDir: dir, configFile },
      );
      try {
        const journal = (await connector.check()).find((c) => c.name === 'journal table');
        expect(journal).toMatchObject({ status: 'fail' });
        expect(journal?.detail).toContain(`${configFile}: connectors.books.journal.table: `);
        expect(journal?.detail).toContain(schema);
        expect(journal?.fix).toContain(fix(schema));
        const writer = capabilityOf(connector, 'accountingWriter', 'books');
        const error: unknown = await writer.writeJournalBatch(BATCH).catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(ConnectorError);
        const message = (error as Error).message;
        expect(message).toContain(`${configFile}: connectors.books.journal.table: `);
        expect(message).toContain(fix(schema));
        // Nothing was created: the schema is the user's to create.
        expect(await writer.hasBatch('je-1').catch((caught: unknown) => caught)).toBeInstanceOf(
          ConnectorError,
        );
      } finally {
        await connector.close();
      }
    },
  );
});
