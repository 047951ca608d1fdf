/**
 * Bad state.url values: every failure names state.url, where it points and the fix, and never the password.
 * The server trusts every local connection, so wrong credentials show up as an unknown user; the password given
 * in the URL must not appear in any case.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { PG_LATEST_SCHEMA_VERSION } from '../../src/state/postgres/migrations.js';
import { openPgStateStore } from '../../src/state/postgres/store.js';
import { PgScratchDatabases, databaseUrl, probePostgres } from './backends.js';
import { FakeClock } from './support.js';
import { freePort } from '../support/free-port.js';

const PASSWORD = 'Pw-7f3c9e1d-never-print';
const clock = new FakeClock();

function openError(url: string): Error {
  try {
    openPgStateStore({ url, clock, connectTimeoutMs: 3000 }).close();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the open to fail');
}

function expectClear(error: Error, ...expected: RegExp[]): void {
  expect(error.message).toMatch(/^state\.url: /);
  for (const pattern of expected) expect(error.message).toMatch(pattern);
  const everything = `${error.message}\n${error.stack ?? ''}\n${JSON.stringify(error)}`;
  expect(everything).not.toContain(PASSWORD);
  expect(error.cause).toBeUndefined();
}

describe('state.url errors without a server', () => {
  it('names state.url and the address when nothing listens there', async () => {
    const port = await freePort();
    const error = openError(`postgres://supply:${PASSWORD}@127.0.0.1:${port}/state`);
    expectClear(error, new RegExp(`postgres://supply@127\\.0\\.0\\.1:${port}/state`), /ECONNREFUSED|connect/, /running and reachable/);
  });
});

const skipReason = await probePostgres();
const title = 'state.url errors against PostgreSQL';

describe.skipIf(skipReason !== null)(skipReason === null ? title : `${title} (skipped: ${skipReason})`, () => {
  const scratch = new PgScratchDatabases();
  afterAll(() => scratch.dropAll());

  it('names the user PostgreSQL refused, not the password', () => {
    const url = new URL(databaseUrl('test'));
    url.username = 'no_such_state_user';
    url.password = PASSWORD;
    const error = openError(url.toString());
    expectClear(error, /no_such_state_user/, /check the user and password given in state\.url/);
  });

  it('says the database does not exist and how to create it', () => {
    const url = new URL(databaseUrl(`missing_${process.pid}`));
    url.password = PASSWORD;
    const error = openError(url.toString());
    expectClear(error, /does not exist/, /CREATE DATABASE/);
    // Said once, by the server's own words.
    expect(error.message.match(/does not exist/g)).toHaveLength(1);
  });

  it('refuses a database written by a newer release, naming the fix', async () => {
    const url = await scratch.create('ss_newer');
    const state = openPgStateStore({ url, clock });
    state.db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(99, 'future', 0);
    state.close();
    for (const readOnly of [false, true]) {
      let error: Error | undefined;
      try {
        openPgStateStore({ url, clock, readOnly }).close();
      } catch (caught) {
        error = caught as Error;
      }
      expect(error?.message).toMatch(/^state\.url: .*schema version 99, newer than this release supports/);
      expect(error?.message).toContain(`(${PG_LATEST_SCHEMA_VERSION}); upgrade supply-sync`);
    }
  });
});
