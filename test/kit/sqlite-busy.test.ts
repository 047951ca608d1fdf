/**
 * Two SQLite connections to one file in one process (the demo's ERP users beside the connector): a transaction
 * that awaits real I/O while it holds the write lock must not make the other connection fail with "database is
 * locked", nor freeze the process while that connection waits.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteDriver } from '../../src/kit/sql/sqlite-driver.js';

describe('SqliteDriver with a second connection of the same process holding the write lock', () => {
  let dir: string;
  const drivers: SqliteDriver[] = [];

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-sqlite-busy-'));
  });

  afterEach(async () => {
    for (const driver of drivers.splice(0)) await driver.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function open(busyTimeoutMs: number): Promise<SqliteDriver> {
    const driver = new SqliteDriver(join(dir, 'erp.sqlite'), { busyTimeoutMs });
    drivers.push(driver);
    await driver.exec('CREATE TABLE IF NOT EXISTS T (ID INTEGER PRIMARY KEY, BY TEXT NOT NULL)');
    return driver;
  }

  it('waits for the other transaction, which commits during the wait, then writes', async () => {
    const users = await open(2_000);
    const connector = await open(2_000);
    let connectorWrite: Promise<unknown> | undefined;
    let ticksDuringWait = 0;
    const ticker = setInterval(() => (ticksDuringWait += 1), 1);
    await users.transaction(async (tx) => {
      await tx.query("INSERT INTO T (BY) VALUES ('users')");
      // The connector starts its write while this transaction holds the lock, as a job does at any moment.
      connectorWrite = connector.transaction((other) =>
        other.query("INSERT INTO T (BY) VALUES ('connector')"),
      );
      connectorWrite.catch(() => undefined);
      // Real I/O inside the transaction (the demo writes an invoice's PDF here).
      await writeFile(join(dir, 'invoice.pdf'), 'pdf');
      await tx.query("INSERT INTO T (BY) VALUES ('users')");
    });
    await connectorWrite;
    clearInterval(ticker);
    // Autocommit statements wait the same way.
    let autocommitWrite: Promise<unknown> | undefined;
    await users.transaction(async () => {
      autocommitWrite = connector.query("INSERT INTO T (BY) VALUES ('connector')");
      autocommitWrite.catch(() => undefined);
      await writeFile(join(dir, 'second.pdf'), 'pdf');
    });
    await autocommitWrite;
    const { rows } = await connector.query('SELECT BY, COUNT(*) AS n FROM T GROUP BY BY ORDER BY BY');
    expect(rows).toEqual([
      { BY: 'connector', n: 2 },
      { BY: 'users', n: 2 },
    ]);
    // The process went on while the connector waited (timers ran): nothing blocked the event loop.
    expect(ticksDuringWait).toBeGreaterThan(0);
  });

  it('still fails after the busy timeout when the lock is never given up, naming the database', async () => {
    const holder = await open(200);
    const waiter = await open(200);
    let release: () => void = () => undefined;
    const held = holder.transaction(async (tx) => {
      await tx.query("INSERT INTO T (BY) VALUES ('holder')");
      await new Promise<void>((resolve) => (release = resolve));
    });
    const startedAt = Date.now();
    await expect(
      waiter.transaction((tx) => tx.query("INSERT INTO T (BY) VALUES ('waiter')")),
    ).rejects.toThrow(/database is locked/);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(150);
    release();
    await held;
  });
});
