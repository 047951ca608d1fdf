/**
 * A PostgreSQL server of the benchmark's own, for a size the shared server's max_connections cannot hold: Debian's
 * initdb and pg_ctl (the newest version installed) on a fresh data folder, listening on a free loopback port, stopped
 * and removed after. Under root it runs as the `postgres` user, as PostgreSQL refuses to run as root.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../test/support/free-port.js';

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  stop(): void;
}

const ROOT = '/usr/lib/postgresql';

/** The newest installed server's bin folder; undefined where none is installed. */
function serverBin(): string | undefined {
  if (!existsSync(ROOT)) return undefined;
  const versions = readdirSync(ROOT)
    .filter((name) => existsSync(join(ROOT, name, 'bin', 'initdb')))
    .sort((a, b) => Number(a) - Number(b));
  const newest = versions.at(-1);
  return newest === undefined ? undefined : join(ROOT, newest, 'bin');
}

/** The uid and gid to run the server as: the `postgres` user under root, else the current user. */
function runAs(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string): number =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts a server allowing `maxConnections`, in a folder of its own under the system's temporary folder (which the
 * `postgres` user can reach); throws with the reason when it cannot. stop() removes the folder.
 */
export async function startPrivatePostgres(maxConnections: number): Promise<PrivatePostgres> {
  const bin = serverBin();
  if (bin === undefined) throw new Error(`no PostgreSQL server under ${ROOT} (Debian's postgresql package)`);
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-bench-postgres-'));
  const data = join(dir, 'data');
  const user = runAs();
  if (user !== undefined) chownSync(dir, user.uid, user.gid);
  const options = { stdio: 'ignore' as const, ...(user ?? {}) };
  execFileSync(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres'], options);
  const port = await freePort();
  const settings = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    `-c max_connections=${maxConnections}`,
    '-c shared_buffers=64MB',
  ].join(' ');
  execFileSync(
    join(bin, 'pg_ctl'),
    ['-D', data, '-o', settings, '-l', join(dir, 'server.log'), '-w', 'start'],
    options,
  );
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      try {
        execFileSync(join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop'], options);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
