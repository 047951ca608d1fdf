/**
 * After the CLI queues a command in a company's state, it rings the office that runs the company, if one runs:
 * the office reads that company's queue at once instead of at its next poll (office-commands.ts). Ringing is a
 * courtesy: when it cannot be done the company's own poll still takes the command, only later.
 */
import { existsSync } from 'node:fs';
import type { LoadedConfig } from '../config/index.js';
import { askCommand, queueLimits } from '../daemon/control/command-queue.js';
import { OFFICE_WAKE, wakeLimits } from '../daemon/office/office-commands.js';
import { systemClock } from '../shared/clock.js';
import { openStateStore } from '../state/index.js';
import { daemonPresence } from './daemon-presence.js';

export function wakeOffice(loaded: LoadedConfig, requestedBy: string): void {
  const company = loaded.company;
  if (company === undefined || !existsSync(company.officeState)) return;
  try {
    const state = openStateStore({ file: company.officeState, clock: systemClock, lock: false });
    try {
      if (!daemonPresence(state, false).held) return;
      const command = { kind: OFFICE_WAKE, args: { company: company.name }, fingerprint: '', requestedBy };
      askCommand(state, command, wakeLimits(queueLimits(loaded.config)));
    } finally {
      state.close();
    }
  } catch {
    // Nothing lost: the company's own poll reads the command within OFFICE_COMMAND_POLL_MS.
  }
}
