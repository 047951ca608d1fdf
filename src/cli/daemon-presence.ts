/**
 * Whether a daemon still holds the state a waiting CLI command was queued for. On a state file: the holder the lock
 * records (a holder that releases the lock deletes its row; one killed, even with SIGKILL, leaves a row naming a pid
 * that no longer runs). On PostgreSQL: the leadership lease, which a live leader renews (its heartbeat); once it has
 * run out no instance leads.
 */
import { hostname } from 'node:os';
import type { StateStore } from '../state/index.js';

/** Held: by `who` when the state says (a pid and host, or an instance name). Not held: why it is not. */
export type Presence =
  { readonly held: true; readonly who?: string } | { readonly held: false; readonly why: string };

export function daemonPresence(state: StateStore, shared: boolean): Presence {
  try {
    return readPresence(state, shared);
  } catch {
    // Unreadable (a table not there yet, the database briefly unreachable): not a sign that the daemon is gone.
    return { held: true };
  }
}

/** What the state says of its daemon now; throws when that cannot be read. */
export function readPresence(state: StateStore, shared: boolean): Presence {
  return shared ? leaseHolder(state) : lockHolder(state);
}

function lockHolder(state: StateStore): Presence {
  const row = state.db.prepare('SELECT pid, hostname FROM daemon_lock WHERE id = 1').get() as
    { pid: number; hostname: string } | undefined;
  if (row === undefined) return { held: false, why: 'no daemon holds the state file any more' };
  if (row.hostname !== hostname() || isRunning(Number(row.pid))) {
    return { held: true, who: `pid ${row.pid} on ${row.hostname}` };
  }
  return { held: false, why: `the daemon that held the state file (pid ${row.pid}) is gone` };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function leaseHolder(state: StateStore): Presence {
  const row = state.db
    .prepare(
      'SELECT holder, expires_at > now() AS live, renewed_at::text AS renewed FROM supply_sync_leader WHERE id = 1',
    )
    .get() as { holder: string; live: boolean; renewed: string } | undefined;
  if (row === undefined) return { held: false, why: 'no instance leads on the shared state' };
  if (row.live) return { held: true, who: row.holder };
  return {
    held: false,
    why: `the leader ${row.holder} stopped renewing its lease (last heartbeat ${row.renewed}); no instance leads now`,
  };
}
