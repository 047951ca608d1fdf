/** Opening the daemon's state from CLI commands: read-only for reports, locked for changes. */
import { existsSync } from 'node:fs';
import { openConfiguredState, openStateStore, type StateLocation, type StateStore } from '../state/index.js';
import { systemClock } from '../shared/clock.js';
import { CliError } from './errors.js';
import type { CoreConfig } from '../config/index.js';

/** A state file path (as before), or the config's whole `state` section, which may name a PostgreSQL database. */
type Where = string | StateLocation;

function requireFile(path: string): void {
  if (!existsSync(path)) {
    throw new CliError(
      `state file ${path} does not exist yet: nothing has run with this config. Start the daemon ` +
        '(`supply-sync run`) or run one job (`supply-sync sync <job>`) with the same --config; either creates it',
      'state_missing',
    );
  }
}

export function openStateForReading(where: Where): StateStore {
  const location = typeof where === 'string' ? { path: where } : where;
  if (location.url !== undefined) return openConfiguredState(location, systemClock, { readOnly: true });
  requireFile(location.path);
  return openStateStore({ file: location.path, clock: systemClock, readOnly: true });
}

/**
 * Takes the single-daemon lock of a state file: changing cursors or dead letters while the daemon runs is
 * refused. A PostgreSQL state has no such lock; the instances' leadership lease is what keeps writers apart.
 */
export function openStateForChange(where: Where): StateStore {
  const location = typeof where === 'string' ? { path: where } : where;
  if (location.url !== undefined) return openConfiguredState(location, systemClock);
  requireFile(location.path);
  return openStateStore({ file: location.path, clock: systemClock });
}

export async function withState<T>(
  open: () => StateStore,
  use: (state: StateStore) => T | Promise<T>,
): Promise<T> {
  const state = open();
  try {
    return await use(state);
  } finally {
    state.close();
  }
}

/**
 * A change from the CLI. On a PostgreSQL state it takes the leadership lease for its length, like `sync <job>`, and
 * is refused while a daemon leads: a cursor reset, a dead-letter replay or a secret rotation under a running leader
 * would race its jobs. The lease is released at the end so a standby takes over at once.
 */
export async function withStateChange<T>(
  config: Pick<CoreConfig, 'state' | 'ha'>,
  purpose: string,
  use: (state: StateStore) => T | Promise<T>,
): Promise<T> {
  const { url } = config.state;
  if (url === undefined) return withState(() => openStateForChange(config.state), use);
  const { leadershipSettings, takeOnceLease } = await import('../daemon/index.js');
  const settings = leadershipSettings(config);
  return withState(
    () => openStateForChange(config.state),
    async (state) => {
      if (settings === null) return use(state);
      const lease = await takeOnceLease({ url, settings, purpose });
      try {
        lease.fence(state);
        return await use(state);
      } finally {
        await lease.release();
      }
    },
  );
}
