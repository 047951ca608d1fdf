import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SqliteDriver } from '../../src/kit/sql/sqlite-driver.js';
import { sharedSqlSuite } from './shared-sql-suite.js';

let dir: string | undefined;

sharedSqlSuite(
  'shared SQL connector suite on SQLite (real file)',
  {
    async open() {
      dir = await mkdtemp(path.join(os.tmpdir(), 'supply-sync-sqlite-'));
      return new SqliteDriver(path.join(dir, 'erp.sqlite'));
    },
    async dispose() {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  },
  '',
);
