/**
 * Whether an office process runs on this machine, as `status --all` tells it before the companies: a running office
 * holds its own state file (office-commands.ts) as a daemon holds its state.
 */
import { existsSync } from 'node:fs';
import { systemClock } from '../shared/clock.js';
import { openStateStore } from '../state/index.js';
import { daemonPresence } from './daemon-presence.js';

export interface OfficePresence {
  readonly running: boolean;
  readonly detail: string;
}

const START = 'start it with `supply-sync run` and this config';

export function officePresence(officeState: string): OfficePresence {
  if (!existsSync(officeState)) {
    return { running: false, detail: `not running here: no office has run with ${officeState}; ${START}` };
  }
  const state = openStateStore({ file: officeState, clock: systemClock, lock: false });
  try {
    const presence = daemonPresence(state, false);
    if (presence.held) return { running: true, detail: `running (it holds ${officeState})` };
    return { running: false, detail: `not running here: ${presence.why}; ${START}` };
  } finally {
    state.close();
  }
}
