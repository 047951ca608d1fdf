/**
 * The office reads its config again without a stop (`config reload` on the office, or SIGHUP): a company file added
 * starts that company, one removed stops it once its running jobs reach a checkpoint, one changed is reloaded in
 * place when only its mappings changed and restarted alone otherwise (a change to the office file's shared parts
 * restarts every company it touches). The other companies run on untouched. A company whose file now has a mistake,
 * or whose state would move, keeps running with the config it has; a change to the office's own settings (its
 * port, log, time zone, state, companies.dir and companies.max_concurrent_runs) needs a restart of the office and is
 * refused, changing nothing. The office report (companies.report, and the office file's notifications it is sent
 * through) is started again with its new settings.
 */
import { ConfigError, loadOfficeToRun, type LoadedConfig, type OfficeConfig } from '../../config/index.js';
import { ControlError } from '../control/actions.js';
import { differences, planReload } from '../control/config-reload.js';
import { errorMessage } from '../../engine/outcome.js';
import {
  eachBounded,
  loadedCompanyName,
  START_CONCURRENCY,
  startCompany,
  stopCompany,
  type MutableEntry,
  type OfficeShared,
} from './office-companies.js';
import type { FollowedReport, OfficeReportFollowed } from './office-report-service.js';

export interface CompanyProblem {
  readonly company: string;
  readonly reason: string;
}

export interface OfficeReload {
  /** The office file read. */
  readonly file: string;
  /** Companies whose file is new (or whose earlier start failed), started now. */
  readonly started: string[];
  /** Companies whose file is gone, stopped. */
  readonly stopped: string[];
  /** Companies whose file changed beyond its mappings, stopped and started again with it. */
  readonly restarted: string[];
  /** Companies whose new mappings apply from each job's next run. */
  readonly reloaded: string[];
  readonly unchanged: string[];
  /** Companies left as they were, with why: a mistake in the file, a state that would move. */
  readonly refused: CompanyProblem[];
  /** Companies not running now that should: a start that failed, a stop whose jobs did not reach a checkpoint. */
  readonly failed: CompanyProblem[];
  /**
   * The office report, started again when companies.report or the office file's notifications changed. Absent from
   * an office older than this field.
   */
  report?: OfficeReportFollowed;
}

export interface OfficeRunning {
  office: OfficeConfig;
  readonly entries: Map<string, MutableEntry>;
  readonly shared: OfficeShared;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How long a stopping company's running jobs have to reach a checkpoint. */
  readonly stopTimeoutMs: number;
  /** Companies not started again in this process (a job of theirs was left running at a stop), with why. */
  readonly held: Map<string, string>;
  /** The office's morning report, which follows a reload of its settings; set once the companies have started. */
  report?: FollowedReport;
}

export async function reloadOffice(running: OfficeRunning, by: string): Promise<OfficeReload> {
  const fresh = readOffice(running);
  refuseOfficeChanges(running.office, fresh);
  refuseBrokenOffice(running, fresh);
  // From here on the companies' secrets are the new files': a start error is scrubbed of a new key too.
  running.office = fresh;
  const result: OfficeReload = {
    file: fresh.file,
    ...{ started: [], stopped: [], restarted: [], reloaded: [], unchanged: [], refused: [], failed: [] },
  };
  const removed = [...running.entries.keys()].filter(
    (name) => !fresh.companies.has(name) && !fresh.failed.has(name),
  );
  await eachBounded(removed, START_CONCURRENCY, (name) => removeCompany(running, name, result));
  for (const [name, problems] of fresh.failed) keepOrFail(running, name, problems, result);
  await eachBounded([...fresh.companies.values()], START_CONCURRENCY, (loaded) =>
    applyCompany(running, loaded, by, result),
  );
  result.report = (await running.report?.follow(fresh.report)) ?? { change: 'unchanged' };
  for (const list of Object.values(result)) if (Array.isArray(list)) list.sort(byCompany);
  running.shared.logger.info({ by, ...summary(result) }, 'office config reloaded');
  return result;
}

function readOffice(running: OfficeRunning): OfficeConfig {
  const file = running.office.file;
  try {
    const set = loadOfficeToRun(file, { env: running.env, registry: running.shared.registry });
    if (set.kind === 'office') return set.office;
    throw new ControlError(
      'restart_needed',
      `${file} has no companies block any more: restart the daemon to run it as one company (nothing was reloaded)`,
    );
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ControlError(
      'config_invalid',
      `${error.message}\nthe office keeps running with the companies it has; fix the file and reload again`,
    );
  }
}

function refuseOfficeChanges(before: OfficeConfig, after: OfficeConfig): void {
  const changed: string[] = [];
  if (before.dir !== after.dir) changed.push('companies.dir');
  if (before.maxConcurrentRuns !== after.maxConcurrentRuns) changed.push('companies.max_concurrent_runs');
  changed.push(...differences(before.settings, after.settings, []));
  if (changed.length === 0) return;
  throw new ControlError(
    'restart_needed',
    `${after.file}: ${changed.join(', ')} changed, which the office cannot apply while it runs: restart the ` +
      'office for that, or undo the change to reload the companies (nothing was reloaded)',
  );
}

/**
 * No company could be read, each for a mistake of its own file (one of the office file's that every company shows
 * is refused by readOffice, as `config validate` tells it): the reload is refused once instead of stopping them all.
 */
function refuseBrokenOffice(running: OfficeRunning, fresh: OfficeConfig): void {
  if (fresh.companies.size > 0 || fresh.failed.size === 0 || running.office.companies.size === 0) return;
  const problems = [...new Set(fresh.failed.values())];
  throw new ControlError(
    'config_invalid',
    `no company of ${fresh.file} could be read:\n${problems.join('\n')}\nthe office keeps running with the ` +
      'companies it has; fix the file and reload again',
  );
}

async function removeCompany(running: OfficeRunning, name: string, result: OfficeReload): Promise<void> {
  const entry = running.entries.get(name);
  if (entry === undefined) return;
  try {
    const unfinished = await stopCompany(entry, running.stopTimeoutMs);
    running.entries.delete(name);
    result.stopped.push(name);
    const level = unfinished.length > 0 ? 'warn' : 'info';
    running.shared.logger[level]({ company: name, unfinished }, 'company stopped: its file is gone');
  } catch (error) {
    result.failed.push({ company: name, reason: `its stop failed: ${errorMessage(error)}` });
  }
}

/**
 * A company whose file now has a mistake: a running one keeps its config (its row says the file is not applied),
 * one not running shows the mistake and is not running.
 */
function keepOrFail(running: OfficeRunning, name: string, problems: string, result: OfficeReload): void {
  const entry = running.entries.get(name);
  if (entry?.state === 'running') {
    entry.error = `its file has mistakes and is not applied: ${problems}`;
    result.refused.push({ company: name, reason: `${problems}\nit keeps running with the config it has` });
    return;
  }
  running.entries.set(name, { name, state: 'failed', error: problems, daemon: undefined });
  result.failed.push({ company: name, reason: `${problems}${environmentHint(problems)}` });
}

/** The office reads `${ENV}` references in the environment it was started with, not the caller's. */
function environmentHint(problems: string): string {
  if (!problems.includes('environment variable')) return '';
  return (
    '\nthe running office reads the environment it was started with: give the value in a file (api_key_file) ' +
    'or restart the office with the variable set'
  );
}

async function applyCompany(
  running: OfficeRunning,
  loaded: LoadedConfig,
  by: string,
  result: OfficeReload,
): Promise<void> {
  const name = loadedCompanyName(loaded);
  try {
    await applyOne(running, name, loaded, by, result);
  } catch (error) {
    result.failed.push({ company: name, reason: `the reload failed for it: ${errorMessage(error)}` });
    running.shared.logger.error({ company: name, err: error }, 'company reload failed');
  }
}

async function applyOne(
  running: OfficeRunning,
  name: string,
  loaded: LoadedConfig,
  by: string,
  result: OfficeReload,
): Promise<void> {
  const entry = running.entries.get(name);
  const held = running.held.get(name);
  if (held !== undefined) return void result.failed.push({ company: name, reason: held });
  if (entry?.state !== 'running' || entry.daemon === undefined) {
    const starting: MutableEntry = entry ?? { name, state: 'starting', error: null, daemon: undefined };
    running.entries.set(name, starting);
    await startCompany(starting, loaded, running.shared);
    if (starting.state === 'running') result.started.push(name);
    else
      result.failed.push({ company: name, reason: `its start failed: ${starting.error ?? starting.state}` });
    return;
  }
  const moved = stateMoved(entry.daemon.env.loaded, loaded);
  if (moved !== null) return void result.refused.push({ company: name, reason: moved });
  entry.error = null;
  // Worked out first without a record: a change the office restarts the company for is not the company's refusal.
  if (needsRestart(running, entry)) return restartCompany(running, entry, loaded, result);
  const outcome = entry.daemon.reloadConfig(by);
  if (!outcome.ok) result.refused.push({ company: name, reason: outcome.error.message });
  else (outcome.result.changed.length === 0 ? result.unchanged : result.reloaded).push(name);
}

function needsRestart(running: OfficeRunning, entry: MutableEntry): boolean {
  const daemon = entry.daemon;
  if (daemon === undefined) return false;
  try {
    planReload({ loaded: daemon.env.loaded, mappings: daemon.env.mappings, env: running.env });
    return false;
  } catch (error) {
    return error instanceof ControlError && error.code === 'restart_needed';
  }
}

/** A company's state must not move under it: its cursors and ledger stay where they are until the office restarts. */
function stateMoved(before: LoadedConfig, after: LoadedConfig): string | null {
  const was = before.config.state;
  const now = after.config.state;
  if (was.path === now.path && was.url === now.url) return null;
  return (
    `its state.path or state.url changed: a company's state moves only with a restart of the office (move the ` +
    'state file first); it keeps running with the state it has'
  );
}

async function restartCompany(
  running: OfficeRunning,
  entry: MutableEntry,
  loaded: LoadedConfig,
  result: OfficeReload,
): Promise<void> {
  let unfinished: string[];
  try {
    unfinished = await stopCompany(entry, running.stopTimeoutMs);
  } catch (error) {
    return void result.failed.push({
      company: entry.name,
      reason: `its stop failed: ${errorMessage(error)}`,
    });
  }
  if (unfinished.length > 0) {
    // A job still going would write beside the new daemon's run of it: not started again in this process.
    const reason = `${notAtCheckpoint(unfinished)}; restart the office to start it again`;
    entry.state = 'failed';
    entry.error = reason;
    running.held.set(entry.name, reason);
    return void result.failed.push({ company: entry.name, reason });
  }
  await startCompany(entry, loaded, running.shared);
  if (entry.state === 'running') result.restarted.push(entry.name);
  else result.failed.push({ company: entry.name, reason: `its start failed: ${entry.error ?? entry.state}` });
}

function notAtCheckpoint(unfinished: readonly string[]): string {
  return `stopped; ${unfinished.join(', ')} had not reached a checkpoint when it stopped`;
}

function byCompany(a: unknown, b: unknown): number {
  const key = (value: unknown): string =>
    typeof value === 'string' ? value : String((value as CompanyProblem).company);
  return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;
}

function summary(result: OfficeReload): Record<string, unknown> {
  const { file: _file, refused, failed, ...lists } = result;
  const names = (problems: readonly CompanyProblem[]): string[] => problems.map((problem) => problem.company);
  return { ...lists, refused: names(refused), failed: names(failed) };
}
