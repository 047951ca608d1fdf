/**
 * The embedded sandbox doctor checks: the daemon's own, whose data and keys are kept in sandbox.db beside the state
 * file, read from a copy so that a running demo's file is never written; a new one while no daemon has made it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { embeddedSandboxFile, type EmbeddedSandboxOptions } from '../../api-access/index.js';
import type { Config } from '../../config/index.js';
import { check, type DoctorCheck } from './check.js';

export interface DoctorSandbox {
  readonly options: EmbeddedSandboxOptions;
  readonly checks: DoctorCheck[];
  dispose(): Promise<void>;
}

const NOTHING: DoctorSandbox = { options: {}, checks: [], dispose: async () => {} };

export async function daemonSandbox(config: Config): Promise<DoctorSandbox> {
  if (config.api.sandbox !== 'embedded') return NOTHING;
  const file = embeddedSandboxFile(config);
  if (!existsSync(file)) {
    const detail = `${file} does not exist yet: checked a new one, with the accounts the daemon starts with`;
    return { ...NOTHING, checks: [check('ok', 'api sandbox', detail)] };
  }
  const dir = await mkdtemp(join(tmpdir(), 'supply-sync-doctor-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const copy = join(dir, 'sandbox.db');
  try {
    // A consistent snapshot even while the daemon writes the file (WAL), read without a write lock.
    const source = new Database(file, { readonly: true, fileMustExist: true });
    try {
      await source.backup(copy);
    } finally {
      source.close();
    }
  } catch (error) {
    await dispose();
    const message = error instanceof Error ? error.message : String(error);
    const fix = `give this user read access to ${file}, or run doctor as the daemon's user`;
    return { ...NOTHING, checks: [check('fail', 'api sandbox', `${file} cannot be read: ${message}`, fix)] };
  }
  const detail = `the daemon's, from ${file} (read from a copy; the file is not changed)`;
  return { options: { statePath: copy }, checks: [check('ok', 'api sandbox', detail)], dispose };
}
