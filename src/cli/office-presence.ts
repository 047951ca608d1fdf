/**
 * Whether an office process runs on this machine, as `status --all` tells it before the companies: a running office
 * holds its own state file (office-commands.ts) as a daemon holds its state. Read only: the file is neither migrated
 * nor locked, so a running office is not disturbed.
 */
import { existsSync } from 'node:fs';
import { errorMessage } from '../engine/index.js';
import { systemClock } from '../shared/clock.js';
import { openStateStore } from '../state/index.js';
import { daemonPresence } from './daemon-presence.js';

export interface OfficePresence {
  /** Null when the office's state file could not be read. */
  readonly running: boolean | null;
  readonly detail: string;
}

const START = 'start it with `supply-sync run` and this config';
/** With the office's state.url, processes on other machines run the companies: this machine's is one of them. */
const ELSEWHERE =
  "; office processes on other machines may run the companies (the office's state.url): each one's status page " +
  'says which it runs';

export function officePresence(officeState: string, shared = false): OfficePresence {
  const elsewhere = shared ? ELSEWHERE : '';
  if (!existsSync(officeState)) {
    return {
      running: false,
      detail: `not running here: no office has run with ${officeState}; ${START}${elsewhere}`,
    };
  }
  try {
    const state = openStateStore({ file: officeState, clock: systemClock, readOnly: true });
    try {
      const presence = daemonPresence(state, false);
      if (presence.held) return { running: true, detail: `running (it holds ${officeState})` };
      return { running: false, detail: `not running here: ${presence.why}; ${START}${elsewhere}` };
    } finally {
      state.close();
    }
  } catch (error) {
    return {
      running: null,
      detail: `unknown: ${officeState} could not be read (${errorMessage(error)}); the companies below are read anyway`,
    };
  }
}
