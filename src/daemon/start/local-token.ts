/**
 * The local operator's token: a fresh random value written at each start to a file only the daemon's user (and
 * root) can read (0600, as Docker's socket or Jupyter's token), so a caller on this host proves it may act by
 * reading it, and nothing that merely connects from 127.0.0.1 (a local proxy) can.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import type { LoadedConfig } from '../../config/index.js';
import { DEFAULT_LOCAL_TOKEN_NAME } from '../../config/control-schema.js';

export interface LocalToken {
  readonly token: string;
  /** The OS user the daemon runs as: the only one (with root) who can read the file; the caller is named after it. */
  readonly user: string;
  readonly file: string;
}

export function localTokenFile(config: LoadedConfig['config']): string {
  return (
    config.server.control?.local_token_file ?? join(dirname(config.state.path), DEFAULT_LOCAL_TOKEN_NAME)
  );
}

function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid${process.getuid?.() ?? 'unknown'}`;
  }
}

export function newLocalToken(config: LoadedConfig['config']): LocalToken {
  return newLocalTokenAt(localTokenFile(config));
}

/** A fresh token to be written to `file` (an office's own, beside its companies' folders). */
export function newLocalTokenAt(file: string): LocalToken {
  return { token: randomBytes(32).toString('base64url'), user: osUser(), file };
}

/** Written beside and renamed over the old file, so a reader never sees half a token or a wider mode. */
export function writeLocalToken(local: LocalToken): void {
  const partial = `${local.file}.${process.pid}.partial`;
  try {
    mkdirSync(dirname(local.file), { recursive: true, mode: 0o700 });
    writeFileSync(partial, `${local.token}\n`, { mode: 0o600, flag: 'w' });
    chmodSync(partial, 0o600);
    renameSync(partial, local.file);
  } catch (error) {
    rmSync(partial, { force: true });
    const code = (error as NodeJS.ErrnoException).code ?? 'unwritable';
    throw new Error(
      `cannot write the local control token ${local.file} (${code}): make its folder writable by the daemon's user, ` +
        'or set server.control.local_token_file to a path it can write',
      { cause: error },
    );
  }
}
