import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { labelledTime } from '../../ops/time-format.js';
import { openPgStateStore, openStateStore, type StateLocation } from '../../state/index.js';
import { StateSchemaOutdatedError, StateSchemaTooNewError } from '../../state/schema-errors.js';
import { systemClock } from '../../shared/clock.js';
import { check, type DoctorCheck } from './check.js';

function nearestExistingDir(path: string): string {
  let dir = dirname(resolve(path));
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** The PostgreSQL state: reachable, with this release's schema (the daemon migrates a fresh database at start). */
function databaseChecks(url: string): DoctorCheck[] {
  try {
    const state = openPgStateStore({ url, clock: systemClock, readOnly: true });
    try {
      return [check('ok', 'state database', `${state.location} (schema version ${state.schemaVersion()})`)];
    } finally {
      state.close();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof StateSchemaOutdatedError) {
      return [check('warn', 'state database', message, 'the daemon migrates it when it starts')];
    }
    return [check('fail', 'state database', message, 'correct state.url, or make the database reachable')];
  }
}

/** A state file not there yet: fine when the daemon can create it. */
function missingFileCheck(path: string): DoctorCheck {
  const dir = nearestExistingDir(path);
  try {
    accessSync(dir, constants.W_OK);
    return check(
      'warn',
      'state file',
      `${path} does not exist yet`,
      'it is created at the first `supply-sync run`',
    );
  } catch {
    return check(
      'fail',
      'state file',
      `${path} cannot be created: ${dir} is not writable`,
      `give the daemon's user write access to ${dir}`,
    );
  }
}

function modeChecks(path: string): DoctorCheck[] {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) === 0) return [];
  return [
    check(
      'warn',
      'state file mode',
      `${path} is readable by others (mode ${mode.toString(8)})`,
      `chmod 600 ${path}`,
    ),
  ];
}

/** The file opens read-only: its schema version and the daemon holding it, if any. */
function openFileCheck(path: string, timeZone: string): DoctorCheck {
  try {
    const state = openStateStore({ file: path, clock: systemClock, readOnly: true });
    try {
      const holder = state.lockHolder();
      const daemon = holder
        ? `daemon pid ${holder.pid} on ${holder.hostname} since ${labelledTime(holder.startedAt, timeZone)}`
        : 'no daemon holds it';
      return check('ok', 'state file', `${path} (schema version ${state.schemaVersion()}; ${daemon})`);
    } finally {
      state.close();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof StateSchemaOutdatedError) {
      return check('warn', 'state file', message, 'the daemon migrates it when it starts');
    }
    if (error instanceof StateSchemaTooNewError) {
      return check('fail', 'state file', message, 'run the release that wrote it, or a newer one');
    }
    return check(
      'fail',
      'state file',
      `${path} cannot be opened: ${message}`,
      'restore it from a backup, or move it away to start fresh',
    );
  }
}

/** `timeZone`: the config's, in which the holding daemon's start is shown. */
export function stateChecks(location: StateLocation, timeZone: string): DoctorCheck[] {
  if (location.url !== undefined) return databaseChecks(location.url);
  const { path } = location;
  if (!existsSync(path)) return [missingFileCheck(path)];
  const modes = modeChecks(path);
  return [openFileCheck(path, timeZone), ...modes];
}
