/** The folders a file-based connector reads from and writes to: where they are, and whether they can be used. */
import { constants } from 'node:fs';
import { access, mkdir, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import type { CheckResult } from '../connector-contract/connector.js';

/** A configured folder, relative to the config file's folder unless absolute. */
export function resolveImportDir(folder: string, baseDir: string): string {
  return isAbsolute(folder) ? folder : resolve(baseDir, folder);
}

export interface FolderCheckOptions {
  /** `write`: the connector only drops files there; `read-write`: it also reads, moves or deletes them. */
  readonly mode: 'write' | 'read-write';
  /** Create the folder when missing (an output folder); otherwise a missing folder fails (a drop folder filled by others). */
  readonly create: boolean;
}

const ACCESS = { write: constants.W_OK, 'read-write': constants.R_OK | constants.W_OK } as const;
const ACCESS_WORDS = { write: 'writable', 'read-write': 'readable and writable' } as const;

/** Checks, for `doctor`, that `dir` is a folder this process may use as `mode` says; creates it first when asked. */
export async function checkFolder(
  name: string,
  dir: string,
  options: FolderCheckOptions,
): Promise<CheckResult> {
  const rights = options.mode === 'write' ? 'write' : 'read and write';
  const fix = `${options.create ? 'create the folder or let supply-sync create it' : 'create the folder'} and give the supply-sync service user ${rights} access to it`;
  try {
    if (options.create) await mkdir(dir, { recursive: true });
    if (!(await stat(dir)).isDirectory()) {
      return { name, status: 'fail', detail: `${dir} is not a folder`, fix: 'point the setting at a folder' };
    }
    await access(dir, ACCESS[options.mode]);
    return { name, status: 'ok', detail: `${dir} is ${ACCESS_WORDS[options.mode]}` };
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : 'not accessible';
    return { name, status: 'fail', detail: `${dir} is not ${ACCESS_WORDS[options.mode]} (${reason})`, fix };
  }
}
