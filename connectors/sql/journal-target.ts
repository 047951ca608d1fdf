/**
 * Whether the journal's tables can be written as configured, asked without changing anything: by `doctor`, by the
 * dry run and by the writer before it creates a table. `create_tables` creates tables, never a schema: a schema
 * that is not there usually means the connection opens another database than the books, or a misspelt name, and
 * creating it would put the books where the accounting system never looks.
 */
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { SqlDialect, SqlDriver } from '../../src/kit/sql/driver.js';
import { quoteIdentifier } from '../../src/kit/sql/dialect.js';
import type { JournalTableConfig } from './journal-config.js';

export interface TargetProblem {
  /** The key under the connector's block, e.g. `journal.table`. */
  readonly key: 'journal.table' | 'journal.batch_key_table';
  readonly detail: string;
  readonly fix: string;
}

/** The schema-qualified tables the writer touches, by the key that names each. */
function qualifiedTables(config: JournalTableConfig): [TargetProblem['key'], string, string][] {
  const tables: [TargetProblem['key'], string][] = [['journal.table', config.table]];
  if (config.batch_key_store === 'table') tables.push(['journal.batch_key_table', config.batch_key_table]);
  return tables.flatMap(([key, table]) => {
    const dot = table.indexOf('.');
    return dot < 0
      ? []
      : [[key, table.slice(0, dot), table.slice(dot + 1)] as [TargetProblem['key'], string, string]];
  });
}

async function schemaExists(driver: SqlDriver, schema: string): Promise<boolean> {
  if (driver.dialect === 'sqlite') {
    const { rows } = await driver.query('PRAGMA database_list');
    return rows.some((row) => String(row['name']).toLowerCase() === schema.toLowerCase());
  }
  const sql =
    driver.dialect === 'pg'
      ? 'SELECT COUNT(*) AS n FROM pg_namespace WHERE nspname = :schema'
      : 'SELECT COUNT(*) AS n FROM sys.schemas WHERE name = :schema';
  const { rows } = await driver.query(sql, { schema });
  return Number(rows[0]?.['n'] ?? 0) > 0;
}

function missingSchema(
  dialect: SqlDialect,
  key: TargetProblem['key'],
  schema: string,
  name: string,
): TargetProblem {
  if (dialect === 'sqlite') {
    return {
      key,
      detail:
        `"${schema}." names an attached SQLite database, and the SQLite file the connection opens has none by ` +
        'that name (SQLite has no schemas)',
      fix: `write the table name without "${schema}." (${key}: ${name}), then run again`,
    };
  }
  return {
    key,
    detail:
      `schema "${schema}" does not exist in the database the connection opens, and journal.create_tables ` +
      'creates tables, never a schema',
    fix:
      'check that connection points at the books database and that the schema is spelt as there; if the schema ' +
      `is really new, have its owner run CREATE SCHEMA ${schema} and grant this user the right to create and ` +
      'write tables in it, then run again',
  };
}

/** The first schema the tables name that the database does not hold; null when every one is there. */
export async function schemaProblem(
  driver: SqlDriver,
  config: JournalTableConfig,
): Promise<TargetProblem | null> {
  for (const [key, schema, name] of qualifiedTables(config)) {
    if (!(await schemaExists(driver, schema))) return missingSchema(driver.dialect, key, schema, name);
  }
  return null;
}

/** Why `table` cannot be read, or null when it can. An unreachable database throws instead. */
async function unreadable(driver: SqlDriver, table: string): Promise<string | null> {
  try {
    await driver.query(`SELECT COUNT(*) AS n FROM ${quoteIdentifier(driver.dialect, table)} WHERE 1 = 0`);
    return null;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'connector_unreachable') throw error;
    return error instanceof Error ? error.message : String(error);
  }
}

/** Whether the journal table holds a row the writer could have written: one with a batch key, when that is mapped. */
async function holdsWrittenRows(driver: SqlDriver, config: JournalTableConfig): Promise<boolean> {
  if ((await unreadable(driver, config.table)) !== null) return false;
  const column = config.columns.batch_key;
  const q = (name: string) => quoteIdentifier(driver.dialect, name);
  const where = column === undefined ? '' : ` WHERE ${q(column)} IS NOT NULL`;
  const { rows } = await driver.query(
    `SELECT CASE WHEN EXISTS (SELECT 1 FROM ${q(config.table)}${where}) THEN 1 ELSE 0 END AS n`,
  );
  return Number(rows[0]?.['n'] ?? 0) > 0;
}

/**
 * The companion table of written batch keys gone while the journal table holds rows: a new, empty one would let a
 * batch already in the books be written again (a re-run after a crash asks it whether the batch is there), so the
 * writer creates it only where no row could have been written yet.
 */
export async function lostCompanionProblem(
  driver: SqlDriver,
  config: JournalTableConfig,
): Promise<TargetProblem | null> {
  if (config.batch_key_store !== 'table') return null;
  if ((await unreadable(driver, config.batch_key_table)) === null) return null;
  if (!(await holdsWrittenRows(driver, config))) return null;
  const companion = config.batch_key_table;
  return {
    key: 'journal.batch_key_table',
    detail:
      `${companion} is missing while ${config.table} holds rows: it records which batches were written, and a ` +
      'new, empty one would let a batch already in the books be written again',
    fix:
      `restore ${companion} from the books database's backup (or recreate it with columns batch_key, ` +
      `entry_count, written_at and a row for each batch in ${config.table}); if those rows were not written by ` +
      `supply-sync, create ${companion} empty; then run again`,
  };
}

/**
 * What a run would stumble on in the target before writing a row: a missing schema, a lost companion table of
 * batch keys, or (without create_tables) a journal table it cannot read. An unreachable database throws instead:
 * that is the connection's problem.
 */
export async function targetProblem(
  driver: SqlDriver,
  config: JournalTableConfig,
): Promise<TargetProblem | null> {
  const problem = (await schemaProblem(driver, config)) ?? (await lostCompanionProblem(driver, config));
  if (problem !== null || config.create_tables) return problem;
  const why = await unreadable(driver, config.table);
  if (why === null) return null;
  return {
    key: 'journal.table',
    detail: `${config.table} cannot be read: ${why}`,
    fix: 'create the table or set journal.create_tables: true, and grant this user INSERT and SELECT on it',
  };
}

/** Where a problem is configured: the connector's block, and the config file it came from when known. */
export interface JournalOrigin {
  readonly connector: string;
  readonly configFile: string | undefined;
}

/** `<file>: connectors.<name>.<key>`, as every message about a setting starts. */
export function settingOf(origin: JournalOrigin, key: string): string {
  const file = origin.configFile === undefined ? '' : `${origin.configFile}: `;
  return `${file}connectors.${origin.connector}.${key}`;
}

export function targetError(origin: JournalOrigin, problem: TargetProblem): ConnectorError {
  return new ConnectorError(
    'connector_config_invalid',
    `${settingOf(origin, problem.key)}: ${problem.detail}; nothing was written. To fix: ${problem.fix}`,
    { connector: origin.connector, retryable: false },
  );
}
