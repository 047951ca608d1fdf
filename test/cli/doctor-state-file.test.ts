/**
 * doctor's state file check on files of other releases: an older (or never migrated) file is a warning the daemon
 * fixes at its next start, never advice to restore a backup or move the file away; a newer one is a failure that
 * names the way out.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { stateChecks } from '../../src/cli/doctor/state-checks.js';
import { LATEST_SCHEMA_VERSION, runMigrations } from '../../src/state/index.js';
import { systemClock } from '../../src/shared/clock.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-doctor-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stateFile(name: string, version: number | 'none'): string {
  const path = join(dir, name);
  const db = new Database(path);
  if (version !== 'none')
    runMigrations(db, systemClock, { target: Math.min(version, LATEST_SCHEMA_VERSION) });
  if (version !== 'none' && version > LATEST_SCHEMA_VERSION) {
    db.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (?, 'future', 0)").run(version);
  }
  db.close();
  return path;
}

const fileCheck = (path: string) =>
  stateChecks({ path }, 'Asia/Jerusalem').find((check) => check.name === 'state file');

describe('doctor: a state file of another release', () => {
  it('warns of an older file and says the daemon migrates it', () => {
    const check = fileCheck(stateFile('older.db', LATEST_SCHEMA_VERSION - 1));
    expect(check?.status).toBe('warn');
    expect(check?.detail).toContain(`has state schema version ${LATEST_SCHEMA_VERSION - 1}`);
    expect(check?.fix).toBe('the daemon migrates it when it starts');
  });

  it('warns of a file created and never migrated', () => {
    const check = fileCheck(stateFile('unmigrated.db', 'none'));
    expect(check?.status).toBe('warn');
    expect(check?.detail).toContain('has state schema version 0');
  });

  it('fails on a newer file and names the way out', () => {
    const check = fileCheck(stateFile('newer.db', LATEST_SCHEMA_VERSION + 1));
    expect(check?.status).toBe('fail');
    expect(check?.detail).toContain('newer than this release supports');
    expect(check?.fix).toBe('run the release that wrote it, or a newer one');
  });

  it("passes this release's file", () => {
    expect(fileCheck(stateFile('current.db', LATEST_SCHEMA_VERSION))?.status).toBe('ok');
  });
});
