/**
 * `supply-sync config reload` on an office config without --company: queued in the office's own state file for the
 * office process that holds it, and waited for. Without a running office there is nothing to reload: the files are
 * checked and read at its start.
 */
import { existsSync } from 'node:fs';
import type { OfficeConfig } from '../config/index.js';
import {
  DEFAULT_COMMAND_TTL_MS,
  DEFAULT_MAX_PENDING_PER_KIND,
  askCommand,
} from '../daemon/control/command-queue.js';
import type { OfficeReload } from '../daemon/office/office-reload.js';
import { systemClock } from '../shared/clock.js';
import { openStateStore } from '../state/index.js';
import type { CliContext } from './context.js';
import { asCliError, requestedByCli } from './control.js';
import { daemonPresence } from './daemon-presence.js';
import { waitForCommand } from './wait-command.js';

const OFFICE_LIMITS = { ttlMs: DEFAULT_COMMAND_TTL_MS, maxPendingPerKind: DEFAULT_MAX_PENDING_PER_KIND };

/** The office's answer, or null when no office process runs. */
export async function reloadRunningOffice(
  context: CliContext,
  office: OfficeConfig,
): Promise<OfficeReload | null> {
  const file = office.statePath;
  if (!existsSync(file)) return null;
  const state = openStateStore({ file, clock: systemClock, lock: false });
  try {
    if (!daemonPresence(state, false).held) return null;
    const { id, merged } = askCommand(
      state,
      { kind: 'config.reload', args: {}, fingerprint: '', requestedBy: requestedByCli() },
      OFFICE_LIMITS,
    );
    const as = merged ? 'the same command was queued already as' : 'queued for it as';
    context.output.progress(`the office is running: ${as} command #${id}, waiting...`);
    const result = (await waitForCommand(state, id, { limits: OFFICE_LIMITS, shared: false, asCliError })) as
      OfficeReload | undefined;
    context.output.done();
    return result ?? null;
  } finally {
    state.close();
  }
}

/** One line per kind of change, and each refusal with its reason. */
export function describeOfficeReload(result: OfficeReload): string {
  const parts: Array<[string, string[]]> = [
    ['started', result.started],
    ['stopped (file removed)', result.stopped],
    ['restarted (file changed)', result.restarted],
    ['new mappings', result.reloaded],
    ['unchanged', result.unchanged],
  ];
  const lines = [`office config reloaded from ${result.file}`];
  for (const [label, names] of parts) if (names.length > 0) lines.push(`  ${label}: ${names.join(', ')}`);
  for (const refusal of result.refused) {
    lines.push(`  ${refusal.company}: not changed: ${refusal.reason.replaceAll('\n', '\n    ')}`);
  }
  return lines.join('\n');
}
