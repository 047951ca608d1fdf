import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { SqliteDriver } from '../../../src/kit/sql/sqlite-driver.js';
import { DEMO_ERP_SCHEMA } from './schema.js';
import { seedDemoErp } from './seed.js';

export const DEMO_ERP_FILE = 'demo-erp.sqlite';
export const DEMO_ERP_ATTACHMENTS = 'attachments';

export interface DemoErp {
  readonly driver: SqliteDriver;
  /** The SQLite database file, for the demo to print. */
  readonly file: string;
  /** Folder where document PDFs are written. */
  readonly attachmentsDir: string;
}

/**
 * Opens the demo ERP in `dataDir`, creating and seeding it on first use. `busyTimeoutMs` is how long a statement
 * waits for another connection's write lock on the file before it fails (SQLite's busy timeout).
 */
export async function openDemoErp(
  dataDir: string,
  options: { readonly busyTimeoutMs?: number } = {},
): Promise<DemoErp> {
  await mkdir(dataDir, { recursive: true });
  const file = path.join(dataDir, DEMO_ERP_FILE);
  const attachmentsDir = path.join(dataDir, DEMO_ERP_ATTACHMENTS);
  await mkdir(attachmentsDir, { recursive: true });
  const isNew = !existsSync(file);
  const driver = new SqliteDriver(file, options);
  try {
    await driver.exec(DEMO_ERP_SCHEMA);
    const { rows } = await driver.query('SELECT COUNT(*) AS n FROM PARTS');
    if (isNew || Number(rows[0]?.['n']) === 0) await driver.transaction((tx) => seedDemoErp(tx));
  } catch (error) {
    await driver.close();
    throw error;
  }
  return { driver, file, attachmentsDir };
}
