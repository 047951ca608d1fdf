/**
 * A state file SQLite cannot open, named as the config names it: `state.path`, what is wrong there and what to do.
 * SQLite's own words ("unable to open database file", "disk I/O error") say neither.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export class StateFileError extends Error {
  readonly key = 'state.path';
  constructor(
    message: string,
    readonly code: 'state_path_is_folder' | 'state_not_writable' | 'state_file_unopenable',
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'StateFileError';
  }
}

/** A folder given as the state file: refused before anything is created in it or its mode changed. */
export function refuseFolder(file: string): void {
  let folder = false;
  try {
    folder = statSync(file).isDirectory();
  } catch {
    // Not there yet: the open creates it.
  }
  if (!folder) return;
  throw new StateFileError(
    `state.path: ${file} is a folder, not a file; set state.path to a file in it (${join(file, 'state.db')}) or elsewhere`,
    'state_path_is_folder',
  );
}

/** SQLite's failure to open `file`, told with the access it lacks when that is why; other errors as they are. */
export function fileOpenFailure(file: string, error: unknown, readOnly: boolean): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^SQLITE_(CANTOPEN|IOERR|PERM|READONLY)/.test(code)) return error;
  const detail = error instanceof Error ? error.message : String(error);
  const folder = dirname(file);
  const mode = readOnly ? constants.R_OK : constants.R_OK | constants.W_OK;
  const missing = [file, folder].find((path) => !accessible(path, mode));
  if (missing !== undefined) {
    const access = readOnly ? 'read' : 'read and write';
    return new StateFileError(
      `state.path: the state file ${file} cannot be opened (${detail}): no ${access} access to ${missing}; give ` +
        `the daemon's user ${access} access to ${missing}, or set state.path to a file in a folder it can write`,
      'state_not_writable',
      { cause: error },
    );
  }
  return new StateFileError(
    `state.path: the state file ${file} cannot be opened (${detail}); check the file and the disk or mount of ` +
      `${folder}, restore the file from a backup, or set state.path to another file`,
    'state_file_unopenable',
    { cause: error },
  );
}

function accessible(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}
