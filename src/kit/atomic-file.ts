/**
 * Durable, all-or-nothing file writes: the content goes to a temporary file in the same folder, is flushed to disk,
 * then renamed over the final name, and the folder entry is flushed too. A reader (or a crash) sees either no file
 * or the complete file, never a partial one.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** Temporary files start with this prefix, so a sweep can remove the leftovers of a crash mid-write. */
export const TEMP_PREFIX = '.tmp-';

export async function writeFileAtomic(file: string, content: Uint8Array | string): Promise<void> {
  const folder = dirname(file);
  await mkdir(folder, { recursive: true });
  const temp = join(folder, `${TEMP_PREFIX}${basename(file)}-${randomBytes(6).toString('hex')}`);
  const handle = await open(temp, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, 0o644);
  try {
    await handle.writeFile(content);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncFolder(folder);
}

/** Flushes a folder's entries (the rename) to disk. Windows cannot open folders for syncing; there it is a no-op. */
export async function syncFolder(folder: string): Promise<void> {
  if (process.platform === 'win32') return;
  const handle = await open(folder, constants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Removes temporary files left in `folder` by writes that never completed. Returns how many were removed. */
export async function removeStaleTempFiles(folder: string): Promise<number> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (error) {
    if (isNotFound(error)) return 0;
    throw error;
  }
  const stale = names.filter((name) => name.startsWith(TEMP_PREFIX));
  await Promise.all(stale.map((name) => rm(join(folder, name), { force: true })));
  return stale.length;
}

export function isNotFound(error: unknown): boolean {
  return error instanceof Error && 'code' in error && (error as { code?: unknown }).code === 'ENOENT';
}
