/**
 * Companies of an office shared by several office processes on PostgreSQL, as the office-instance tests set them
 * up: each a sandbox buyer account, a database of its own, a Hashavshevet folder, and a company file whose API key
 * and state URL come from the environment (`KEY_<NAME>`, `DB_<NAME>`), so that each process can be given its own.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningSandbox } from '../../../src/sandbox/index.js';
import { spawnCli, type CliChild } from '../../crash/harness/child.js';
import { journalOfficeYaml } from '../../support/office.js';
import { createTempDatabase, withClient, type TempDatabase } from './postgres.js';

export interface SharedCompany {
  readonly db: TempDatabase;
  readonly account: string;
  readonly key: string;
  /** Its books folder (Hashavshevet import files). */
  readonly books: string;
}

/**
 * The office file of processes sharing the companies: its database from `OFFICE_DB`, each process's own state file
 * from `OFFICE_STATE` and its name from `SUPPLY_SYNC_HA_INSTANCE`; `companies` lines go in the companies block.
 */
export function sharedOfficeYaml(
  baseUrl: string,
  timing: { leaseMs: number; pollMs: number },
  more: { companies?: readonly string[]; office?: readonly string[] } = {},
): string {
  return journalOfficeYaml(baseUrl, [
    '  url: ${OFFICE_DB}',
    'companies:',
    '  dir: companies.d',
    ...(more.companies ?? []),
    'timezone: UTC',
    'ha:',
    '  instance: ${SUPPLY_SYNC_HA_INSTANCE}',
    `  lease: ${timing.leaseMs}ms`,
    `  poll_interval: ${timing.pollMs}ms`,
    ...(more.office ?? []),
  ]).replace('  path: state/office.db', '  path: ${OFFICE_STATE}');
}

/** The environment variable a company file reads its API key (`KEY`) or state URL (`DB`) from. */
export const companyVariable = (kind: 'KEY' | 'DB', company: string): string =>
  `${kind}_${company.toUpperCase()}`;

/** Creates each company's account, database, books folder and file under `<dir>/companies.d`. */
export async function createSharedCompanies(
  sandbox: RunningSandbox,
  dir: string,
  companies: readonly string[],
): Promise<Map<string, SharedCompany>> {
  const created = new Map<string, SharedCompany>();
  for (const company of companies) {
    const db = await createTempDatabase();
    const account = await sandbox.control.createAccount({
      type: 'buyer',
      name: `${company} ltd`,
      plan: 'Pro',
    });
    const books = join(dir, 'companies.d', 'books', company);
    mkdirSync(books, { recursive: true });
    writeFileSync(
      join(dir, 'companies.d', `${company}.yaml`),
      [
        'api:',
        `  api_key: \${${companyVariable('KEY', company)}}`,
        'state:',
        `  url: \${${companyVariable('DB', company)}}`,
        'connectors:',
        '  books:',
        `    import_dir: books/${company}`,
        '',
      ].join('\n'),
    );
    created.set(company, { db, account: account.id, key: account.key, books });
  }
  return created;
}

/** Who holds each company's lease now, by the database clock; undefined where none holds a live one. */
export async function leaseHolders(
  companies: ReadonlyMap<string, SharedCompany>,
): Promise<Map<string, string | undefined>> {
  const out = new Map<string, string | undefined>();
  for (const [company, { db }] of companies) {
    const { rows } = await withClient(db.url, (client) =>
      client
        .query<{ holder: string; live: boolean }>(
          'SELECT holder, expires_at > now() AS live FROM supply_sync_leader WHERE id = 1',
        )
        .catch(() => ({ rows: [] as Array<{ holder: string; live: boolean }> })),
    );
    out.set(company, rows[0]?.live === true ? rows[0].holder : undefined);
  }
  return out;
}

/** Starts one office process (`run` of the compiled CLI) and records it and its operations URL under `name`. */
export async function startOfficeInstance(
  officeFile: string,
  name: string,
  env: Record<string, string>,
  into: { instances: Map<string, CliChild>; urls: Map<string, string> },
): Promise<void> {
  const child = spawnCli(['--config', officeFile, 'run', '--port', '0'], env);
  into.instances.set(name, child);
  const url = await child.ready;
  if (url === null) throw new Error(`instance ${name} did not start:\n${child.output()}`);
  into.urls.set(name, url);
}
