/**
 * `supply-sync config reload` on an office config without --company: queued in the office's own state file for the
 * office process that holds it, and waited for. Without a running office there is nothing to reload: the files are
 * checked and read at its start.
 */
import { existsSync } from 'node:fs';
import type { OfficeConfig } from '../config/index.js';
import { askCommand } from '../daemon/control/command-queue.js';
import { officeQueueLimits } from '../daemon/office/office-commands.js';
import type { OfficeReload } from '../daemon/office/office-reload.js';
import type { OfficeReportChange } from '../daemon/office/office-report-service.js';
import { systemClock } from '../shared/clock.js';
import { openStateStore, type QueuedCommand } from '../state/index.js';
import type { CliContext } from './context.js';
import { CliError } from './errors.js';
import { asCliError, requestedByCli } from './control.js';
import { daemonPresence } from './daemon-presence.js';
import { catchInterrupts, waitForCommand } from './wait-command.js';

/** The office's answer, or null when no office process runs. */
export async function reloadRunningOffice(
  context: CliContext,
  office: OfficeConfig,
): Promise<OfficeReload | null> {
  const file = office.statePath;
  if (!existsSync(file)) return null;
  const limits = officeQueueLimits(office);
  const state = openStateStore({ file, clock: systemClock, lock: false });
  const interrupts = catchInterrupts();
  try {
    if (!daemonPresence(state, false).held) return null;
    const { id, merged } = askCommand(
      state,
      { kind: 'config.reload', args: {}, fingerprint: '', requestedBy: requestedByCli() },
      limits,
    );
    const as = merged ? 'the same command was queued already as' : 'queued for it as';
    context.output.waiting(`the office is running: ${as} command #${id}, waiting...`);
    const result = await waitForCommand(state, id, {
      limits,
      shared: false,
      asCliError,
      fate: officeFate,
      interrupts,
    }).finally(() => context.output.done());
    if (result === null || typeof result !== 'object') {
      throw new CliError(
        `the office answered command #${id} without an outcome; see the office log`,
        'no_outcome',
      );
    }
    return result as OfficeReload;
  } finally {
    interrupts.release();
    state.close();
  }
}

/** What becomes of an office command the CLI stopped waiting for (the office queue has no `commands show`). */
function officeFate(command: QueuedCommand | null, id: number): string {
  if (command?.status === 'running') {
    return (
      `the office took command #${id} and had not finished it: its next start records it interrupted; see the ` +
      'office status page for where each company is, and reload again'
    );
  }
  return `command #${id} stays queued: the office carries it out when it runs again (before the command expires)`;
}

const REPORT_CHANGES: Record<Exclude<OfficeReportChange, 'unchanged'>, string> = {
  started: 'started (companies.report is new)',
  stopped: 'stopped (companies.report is gone)',
  reloaded: 'restarted with its new settings (companies.report or the notifications it is sent through)',
  refused: 'NOT CHANGED',
};

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
  const report = result.report ?? { change: 'unchanged' };
  if (report.change !== 'unchanged') {
    lines.push(
      `  office report: ${REPORT_CHANGES[report.change]}${report.reason === undefined ? '' : `: ${report.reason}`}`,
    );
  }
  for (const refusal of result.refused) {
    lines.push(`  ${refusal.company}: not changed: ${refusal.reason.replaceAll('\n', '\n    ')}`);
  }
  for (const failure of result.failed) {
    lines.push(`  ${failure.company}: NOT RUNNING: ${failure.reason.replaceAll('\n', '\n    ')}`);
  }
  return lines.join('\n');
}
