/**
 * The office reads its config again without a stop (`config reload` on the office, or SIGHUP): a company file added
 * starts that company, one removed stops it once its running jobs reach a checkpoint, one changed is reloaded in
 * place when only its mappings changed and restarted alone otherwise. The other companies run on untouched. A
 * company whose file now has a mistake keeps running with the config it has; a change to the office's own settings
 * (its port, log, time zone, the companies block) needs a restart of the office and is refused, changing nothing.
 */
import { isDeepStrictEqual } from 'node:util';
import { ConfigError, loadOfficeToRun, type LoadedConfig, type OfficeConfig } from '../../config/index.js';
import { ControlError } from '../control/actions.js';
import {
  companyName,
  startCompany,
  stopCompany,
  type MutableEntry,
  type OfficeShared,
} from './office-companies.js';

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
  /** Companies whose file has a mistake or whose start failed, with why; a running one keeps its config. */
  readonly refused: Array<{ company: string; reason: string }>;
}

/** The keys only the office file sets: a company file may not, and a reload cannot apply a change to them. */
const OFFICE_KEYS = ['server', 'log', 'timezone', 'ha', 'health'] as const;

export interface OfficeRunning {
  office: OfficeConfig;
  readonly entries: Map<string, MutableEntry>;
  readonly shared: OfficeShared;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How long a stopping company's running jobs have to reach a checkpoint. */
  readonly stopTimeoutMs: number;
}

export async function reloadOffice(running: OfficeRunning, by: string): Promise<OfficeReload> {
  const fresh = readOffice(running);
  refuseOfficeChanges(running.office, fresh);
  const result: OfficeReload = {
    file: fresh.file,
    started: [],
    stopped: [],
    restarted: [],
    reloaded: [],
    unchanged: [],
    refused: [],
  };
  const removed = [...running.entries.keys()].filter(
    (name) => !fresh.companies.has(name) && !fresh.failed.has(name),
  );
  await Promise.all(removed.map((name) => removeCompany(running, name, result)));
  for (const [name, problems] of fresh.failed) keepOrFail(running, name, problems, result);
  for (const loaded of fresh.companies.values()) await applyCompany(running, loaded, by, result);
  running.office = fresh;
  // Companies stop at once, each when its jobs reach a checkpoint: name order, not the order they finished in.
  result.stopped.sort();
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
  const was = firstConfig(before);
  const now = firstConfig(after);
  if (was !== undefined && now !== undefined) {
    for (const key of OFFICE_KEYS) if (!isDeepStrictEqual(was[key], now[key])) changed.push(key);
  }
  if (changed.length === 0) return;
  throw new ControlError(
    'restart_needed',
    `${after.file}: ${changed.join(', ')} changed, which the office cannot apply while it runs: restart it for ` +
      `${changed.length === 1 ? 'it' : 'them'} (nothing was reloaded)`,
  );
}

function firstConfig(office: OfficeConfig): LoadedConfig['config'] | undefined {
  return office.companies.values().next().value?.config;
}

async function removeCompany(running: OfficeRunning, name: string, result: OfficeReload): Promise<void> {
  const entry = running.entries.get(name);
  if (entry === undefined) return;
  const unfinished = await stopCompany(entry, running.stopTimeoutMs);
  running.entries.delete(name);
  result.stopped.push(name);
  running.shared.logger.info({ company: name, unfinished }, 'company stopped: its file is gone');
}

/** A company whose file now has a mistake: a running one keeps its config, one not running shows the mistake. */
function keepOrFail(running: OfficeRunning, name: string, problems: string, result: OfficeReload): void {
  const entry = running.entries.get(name);
  if (entry?.state === 'running') {
    result.refused.push({ company: name, reason: `${problems}\nit keeps running with the config it has` });
    return;
  }
  running.entries.set(name, { name, state: 'failed', error: problems, daemon: undefined });
  result.refused.push({ company: name, reason: problems });
}

async function applyCompany(
  running: OfficeRunning,
  loaded: LoadedConfig,
  by: string,
  result: OfficeReload,
): Promise<void> {
  const name = companyName(loaded);
  const entry = running.entries.get(name);
  if (entry?.state !== 'running' || entry.daemon === undefined) {
    const starting: MutableEntry = entry ?? { name, state: 'starting', error: null, daemon: undefined };
    running.entries.set(name, starting);
    await startCompany(starting, loaded, running.shared);
    if (starting.state === 'running') result.started.push(name);
    else result.refused.push({ company: name, reason: starting.error ?? starting.state });
    return;
  }
  const outcome = entry.daemon.reloadConfig(by);
  if (outcome.ok) {
    (outcome.result.changed.length === 0 ? result.unchanged : result.reloaded).push(name);
    return;
  }
  if (outcome.error.code !== 'restart_needed') {
    result.refused.push({ company: name, reason: outcome.error.message });
    return;
  }
  await stopCompany(entry, running.stopTimeoutMs);
  await startCompany(entry, loaded, running.shared);
  if (entry.state === 'running') result.restarted.push(name);
  else result.refused.push({ company: name, reason: entry.error ?? entry.state });
}

function summary(result: OfficeReload): Record<string, unknown> {
  const { file: _file, refused, ...lists } = result;
  return { ...lists, refused: refused.map((refusal) => refusal.company) };
}
