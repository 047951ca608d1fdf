/**
 * A config reload without a stop: the daemon reads its config file again and validates it as at the start. When only
 * `mappings:` changed, the jobs use the new mappings from their next run on. Anything else (a connection, a schedule,
 * a job, a secret) is built into the running services: the reload is refused naming the keys that need a restart,
 * and nothing changes. A file that does not validate is refused with the loader's error; the daemon keeps running
 * with the config it has.
 */
import type { Logger } from 'pino';
import { ConfigError, configFiles, readAgain, type LoadedConfig } from '../../config/index.js';
import type { StateStore } from '../../state/index.js';
import type { Mappings } from '../../plugin/index.js';
import {
  changedTables,
  mappingsFingerprint,
  type MappingsHolder,
  type MappingsProblem,
} from '../jobs/mappings.js';
import { ControlError } from './actions.js';
import { configFingerprint } from './fingerprint.js';

/** The top-level keys a reload swaps in; every other change needs a restart. */
export const RELOADABLE_KEYS: readonly string[] = ['mappings'];

export interface ReloadResult {
  /** The file read. */
  file: string;
  /** The mapping tables that changed (added, removed or with other entries); empty when nothing changed. */
  changed: string[];
  /** The fingerprint of the mappings now in use. */
  mappings: string;
}

export interface ReloadSources {
  /** The config the daemon started with: every key but the reloadable ones stays as it is. */
  readonly loaded: LoadedConfig;
  readonly mappings: MappingsHolder;
  /** The environment variables the file's references are read from (the daemon's own). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** At most this many keys are named in a refusal; the rest are counted. */
const NAMED_KEYS = 12;

/** A reload worked out but not applied yet: its outcome, and the mappings to swap in (null: nothing changed). */
export interface PlannedReload {
  readonly result: ReloadResult;
  readonly next: Mappings | null;
}

/**
 * Reads and checks the file and works out what a reload would change, changing nothing: throws a ControlError when
 * the reload is refused. Apply it with applyReload once its outcome is recorded.
 */
export function planReload(sources: ReloadSources): PlannedReload {
  const { loaded } = sources;
  let fresh: LoadedConfig;
  try {
    fresh = readAgain(loaded, {
      registry: loaded.parsedBy,
      ...(sources.env === undefined ? {} : { env: sources.env }),
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ControlError(
      'config_invalid',
      `${error.message}\nthe daemon keeps running with the config it has; fix the file and reload again`,
    );
  }
  const needRestart = differences(loaded.config, fresh.config, []).filter(
    (key) => !RELOADABLE_KEYS.some((reloadable) => key === reloadable || key.startsWith(`${reloadable}.`)),
  );
  if (needRestart.length > 0) {
    const named = needRestart.slice(0, NAMED_KEYS).join(', ');
    const more = needRestart.length > NAMED_KEYS ? ` and ${needRestart.length - NAMED_KEYS} more` : '';
    const restart =
      loaded.company === undefined
        ? `restart the daemon for ${needRestart.length === 1 ? 'it' : 'them'}`
        : `\`supply-sync --config ${loaded.company.office} config reload\` (without --company) restarts ` +
          'this company alone in the running office';
    throw new ControlError(
      'restart_needed',
      `${configFiles(loaded)}: ${named}${more} changed, which a reload cannot apply: ${restart} ` +
        '(nothing was reloaded; only mappings reload without a stop)',
    );
  }
  const next = fresh.config.mappings as Mappings;
  const current = sources.mappings.current();
  const changed = changedTables(current, next);
  if (changed.length === 0) {
    return { result: { file: loaded.file, changed, mappings: mappingsFingerprint(current) }, next: null };
  }
  const problems = sources.mappings.problemsWith(next);
  if (problems.length > 0) throw unfitMappings(configFiles(loaded), problems);
  return { result: { file: loaded.file, changed, mappings: mappingsFingerprint(next) }, next };
}

/** Swaps in the planned mappings: the jobs use them from their next run on. */
export function applyReload(mappings: MappingsHolder, plan: PlannedReload): void {
  if (plan.next !== null) mappings.replace(plan.next);
}

/** Plans the reload and applies it at once (when nothing has to be recorded first). */
export function reloadConfig(sources: ReloadSources): ReloadResult {
  const plan = planReload(sources);
  applyReload(sources.mappings, plan);
  return plan.result;
}

/** The new mappings would fail jobs as they are built at a start (a table a job's options name is gone). */
function unfitMappings(file: string, problems: readonly MappingsProblem[]): ControlError {
  const each = problems.map((problem) => `job "${problem.job}" (flow ${problem.flow}): ${problem.message}`);
  return new ControlError(
    'config_invalid',
    `${file}: mappings: the new mappings do not fit ${problems.length === 1 ? 'a job' : `${problems.length} jobs`}: ` +
      `${each.join('; ')}\nnothing was reloaded: the daemon keeps running with the mappings it has; fix the file ` +
      'and reload again',
  );
}

/** The dotted keys whose values differ; a key present on one side only counts as changed. Values never leave here. */
export function differences(before: unknown, after: unknown, path: readonly string[]): string[] {
  if (Object.is(before, after)) return [];
  const key = path.join('.') || '(the whole file)';
  if (!isRecord(before) || !isRecord(after)) {
    const same = typeof before === typeof after && JSON.stringify(before) === JSON.stringify(after);
    return same ? [] : [key];
  }
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return names.flatMap((name) => differences(before[name], after[name], [...path, name]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

export function logReload(logger: Logger, by: string, result: ReloadResult): void {
  logger.info(
    { by, file: result.file, changed: result.changed, mappings: result.mappings },
    result.changed.length === 0
      ? 'config reloaded: the mappings are unchanged'
      : `config reloaded: mappings ${result.changed.join(', ')} changed; jobs use them from their next run`,
  );
}

export type RecordedReload = { ok: true; result: ReloadResult } | { ok: false; error: ControlError };

type RecordSources = ReloadSources & { readonly queue: StateStore; readonly logger: Logger };

/**
 * A reload not given through the queue (SIGHUP on the daemon process): carried out here, on this instance, and kept
 * in the commands table with who asked and how it ended, like a queued one, and logged.
 */
export function recordedReload(sources: RecordSources, by: string): RecordedReload {
  const { logger } = sources;
  const outcome = attempt(sources);
  if (outcome.ok) logReload(logger, by, outcome.result);
  else logger.warn({ by, code: outcome.error.code, detail: outcome.error.message }, 'config reload refused');
  record(sources, by, outcome);
  return outcome;
}

/** Who a reload on winning a term is recorded as. */
export const LEADERSHIP_RELOAD = 'leadership';

/**
 * On winning a term: the instance reads its config file again, so a reload given to an earlier leader (or an edit
 * made while this one stood by) reaches the scheduled runs. Changed mappings are applied as a reload applies them,
 * logged and recorded by `leadership`; a file with other changes, or one that does not validate, is refused loudly
 * and the instance runs its jobs with the config it has. Nothing is recorded when nothing changed.
 */
export function reloadOnLeadership(sources: RecordSources): RecordedReload {
  const { logger } = sources;
  const outcome = attempt(sources);
  if (outcome.ok && outcome.result.changed.length === 0) return outcome;
  if (outcome.ok) logReload(logger, LEADERSHIP_RELOAD, outcome.result);
  else {
    logger.error(
      { by: LEADERSHIP_RELOAD, code: outcome.error.code, detail: outcome.error.message },
      'the config file changed since this instance started and cannot be reloaded: as the leader it runs its ' +
        'jobs with the config it has (mappings too) until the file is fixed and reloaded, or it is restarted',
    );
  }
  record(sources, LEADERSHIP_RELOAD, outcome);
  return outcome;
}

function attempt(sources: ReloadSources): RecordedReload {
  try {
    return { ok: true, result: reloadConfig(sources) };
  } catch (error) {
    if (!(error instanceof ControlError)) throw error;
    return { ok: false, error };
  }
}

/** Kept in the commands table like a queued reload; a failure to record is logged, the reload stands. */
function record(sources: RecordSources, by: string, outcome: RecordedReload): void {
  const { queue, logger } = sources;
  try {
    queue.transaction(() => {
      const id = queue.commands.enqueue({
        kind: 'config.reload',
        args: {},
        fingerprint: configFingerprint(sources.loaded.config),
        requestedBy: by,
      });
      queue.commands.claim(id);
      if (outcome.ok) queue.commands.complete(id, outcome.result);
      else queue.commands.fail(id, outcome.error.code, outcome.error.message);
    });
  } catch (error) {
    logger.warn({ err: error, by }, 'the config reload could not be recorded in the state');
  }
}
