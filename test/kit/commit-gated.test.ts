/**
 * A commit-gated driver over a real SQLite database: the gate is asked after the transaction's last statement,
 * and a refusal rolls the whole transaction back with the gate's error; reads and an allowed commit pass.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { commitGated, SqliteDriver, type SqlDriver } from '../../src/kit/sql/index.js';

let dir: string;
let raw: SqlDriver;
let steps: string[];
let refuse: boolean;
let gated: SqlDriver;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'commit-gated-'));
  raw = new SqliteDriver(join(dir, 'erp.db'));
  await raw.query('CREATE TABLE orders (number TEXT NOT NULL)');
  steps = [];
  refuse = false;
  gated = commitGated(raw, () => {
    steps.push('gate');
    return refuse ? Promise.reject(new Error('not the leader')) : Promise.resolve();
  });
});

afterEach(async () => {
  await raw.close();
  rmSync(dir, { recursive: true, force: true });
});

async function insertOrder(number: string): Promise<void> {
  await gated.transaction(async (tx) => {
    await tx.query('INSERT INTO orders (number) VALUES (:number)', { number });
    steps.push(`insert ${number}`);
  });
}

describe('a commit-gated driver', () => {
  it('asks the gate after the last statement and commits when allowed', async () => {
    await insertOrder('PO-1');
    expect(steps).toEqual(['insert PO-1', 'gate']);
    expect((await raw.query('SELECT number FROM orders')).rows).toEqual([{ number: 'PO-1' }]);
  });

  it("rolls the transaction back on a refusal, with the gate's error", async () => {
    refuse = true;
    await expect(insertOrder('PO-2')).rejects.toThrow('not the leader');
    expect(steps).toEqual(['insert PO-2', 'gate']);
    expect((await gated.query('SELECT count(*) AS n FROM orders')).rows).toEqual([{ n: 0 }]);
  });

  it('is the driver itself without a gate', () => {
    expect(commitGated(raw, undefined)).toBe(raw);
  });
});
