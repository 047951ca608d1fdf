/** `supply-sync status [--json]`: jobs, freshness, dead letters, outbox and inbox from the state file. */
import type { CommandSpec, Invocation } from '../command-spec.js';
import { jobStatuses } from '../../daemon/status/job-status.js';
import { deepScrub, scrubSecrets } from '../../log/index.js';
import { stateOverview } from '../../engine/index.js';
import { jobCheck } from '../../ops/readiness.js';
import { existsSync } from 'node:fs';
import { apiKeySettingName, type LoadedConfig } from '../../config/index.js';
import { withRunErrorFix } from '../../notify/index.js';
import {
  fixedLetters,
  missingMappingFixes,
  type MissingMappingFixGroup,
} from '../../shared/missing-mapping.js';
import {
  globalOptions,
  loadCliConfig,
  loadCliCompanies,
  type CliContext,
  type GlobalOptions,
} from '../context.js';
import { readPresence, type Presence } from '../daemon-presence.js';
import { officePresence } from '../office-presence.js';
import { openStateForReading, withState } from '../state-access.js';
import { askedBy } from './runs.js';
import { CliError } from '../errors.js';
import { StateSchemaOutdatedError, type StateStore } from '../../state/index.js';
import { explainStateError } from '../../daemon/start/start-errors.js';

function ago(ms: number | null, now: number): string {
  if (ms === null) return 'never';
  const minutes = Math.round((now - ms) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 120) return `${minutes} min ago`;
  return `${Math.round(minutes / 60)} h ago`;
}

type Overview = ReturnType<typeof stateOverview>;
type Health = ReadonlyMap<string, ReturnType<typeof jobCheck>>;

interface StatusOptions {
  json?: boolean;
  all?: boolean;
}

/** One line per job, one per missing mapping that holds letters back (with its fix), then the queues. */
function printStatus(
  context: CliContext,
  loaded: LoadedConfig,
  read: { overview: Overview; health: Health; fixes: readonly MissingMappingFixGroup[] },
  now: number,
): void {
  const { overview, health, fixes } = read;
  const { config } = loaded;
  const keySetting = apiKeySettingName(loaded);
  for (const job of overview.jobs) {
    const spec = config.jobs[job.job];
    const state =
      spec?.enabled === false ? 'disabled' : job.running ? 'running' : (job.lastRun?.outcome ?? 'no runs');
    const error = job.lastError
      ? `; last error ${ago(job.lastError.at, now)}: ${scrubSecrets(withRunErrorFix(job.lastError.message, keySetting), context.secrets)}`
      : '';
    const check = health.get(job.job);
    // A ready check can carry a detail too: a paused job says since when, by whom and why.
    const readiness =
      check === undefined
        ? ''
        : `readiness ${check.detail === undefined ? check.state : `${check.state} (${check.detail})`}; `;
    const lastRun = job.lastRun === null ? '' : `last run: ${askedBy(job.lastRun)}; `;
    // "Last success" as readiness, the status page and metrics count it: the last run that made progress.
    context.output.line(
      `${job.job.padEnd(16)} ${state.padEnd(9)} ${readiness}${lastRun}last success ${ago(job.lastProgressAt, now)}; ` +
        `dead letters ${job.openDeadLetters}${error}`,
    );
  }
  for (const group of fixes) {
    context.output.line(
      scrubSecrets(
        `${group.flow.padEnd(16)} holds back ${fixedLetters(group)}; to fix: ${group.fix}`,
        context.secrets,
      ),
    );
  }
  context.output.line(
    `dead letters open ${overview.openDeadLetters}; outbox pending ${overview.outbox.pending}, dead ${overview.outbox.dead}; ` +
      `webhook inbox pending ${overview.inbox.pending}`,
  );
}

interface StatusRead {
  overview: Overview;
  health: Health;
  fixes: readonly MissingMappingFixGroup[];
  /** Whether a daemon holds this state now (null: that cannot be read): without one, nothing below changes. */
  daemon: Presence | null;
}

/** The job-health model /readyz and the status page use, read from the state file. */
function readStatus(context: CliContext, loaded: LoadedConfig, now: number): Promise<StatusRead> {
  const { config } = loaded;
  return withState(
    () => openStateForReading(config.state),
    (state) => ({
      daemon: presenceOrNull(state, config.state.url !== undefined),
      overview: stateOverview(state, Object.keys(config.jobs)),
      fixes: missingMappingFixes(state.deadLetters.list(), loaded.file),
      health: new Map(
        jobStatuses({
          jobs: Object.entries(config.jobs),
          state,
          defaultTimezone: config.timezone,
          now,
        }).map((job) => [job.name, jobCheck(job, now, context.secrets, config.timezone)] as const),
      ),
    }),
  );
}

function presenceOrNull(state: StateStore, shared: boolean): Presence | null {
  try {
    return readPresence(state, shared);
  } catch {
    return null;
  }
}

/** The daemon line: who runs the jobs, or that no one does and how to start it. */
function daemonLine(daemon: Presence | null): string {
  if (daemon === null) return 'daemon: unknown (its lock or lease cannot be read)';
  if (daemon.held) return `daemon: running${daemon.who === undefined ? '' : ` (${daemon.who})`}`;
  return `daemon: not running: ${daemon.why}; no job runs until it is started (\`supply-sync run\`)`;
}

function statusJson(read: StatusRead): unknown {
  const { overview, health, fixes, daemon } = read;
  return {
    daemon:
      daemon === null
        ? { running: null }
        : daemon.held
          ? { running: true, ...(daemon.who === undefined ? {} : { who: daemon.who }) }
          : { running: false, why: daemon.why },
    ...overview,
    jobs: overview.jobs.map((job) => {
      const check = health.get(job.job);
      return check === undefined
        ? job
        : { ...job, health: { state: check.state, ok: check.ok, detail: check.detail ?? null } };
    }),
    missingMappingFixes: fixes.map(({ flow, ids, fix }) => ({ flow, ids, fix })),
  };
}

async function showStatus({ context, options, command }: Invocation<StatusOptions>): Promise<void> {
  const global = globalOptions(command);
  if (options.all) return showAll(context, global, options.json === true);
  const loaded = await loadCliConfig(context, global);
  const now = Date.now();
  const read = await readStatus(context, loaded, now);
  // Errors are stored as they came: the config's secrets are replaced, as on the status page.
  if (options.json)
    return context.output.line(JSON.stringify(deepScrub(statusJson(read), context.secrets), null, 2));
  context.output.line(daemonLine(read.daemon));
  printStatus(context, loaded, read, now);
}

/**
 * A company as `status --all` read it: left out (a mistake in its config, as read here), its state not there yet
 * (never run), unreadable (why), or read.
 */
type CompanyRead =
  | { kind: 'left out'; why: string }
  | { kind: 'not run' }
  | { kind: 'unreadable'; why: string }
  | { kind: 'read'; read: StatusRead };

async function readCompany(context: CliContext, loaded: LoadedConfig, now: number): Promise<CompanyRead> {
  const { state } = loaded.config;
  if (state.url === undefined && !existsSync(state.path)) return { kind: 'not run' };
  try {
    return { kind: 'read', read: await readStatus(context, loaded, now) };
  } catch (error) {
    if (error instanceof StateSchemaOutdatedError && error.found === 0) return { kind: 'not run' };
    // Told as the daemon's start tells it: the company's file, the key and what to do.
    const told = explainStateError(error, loaded) ?? error;
    return {
      kind: 'unreadable',
      why: scrubSecrets(told instanceof Error ? told.message : String(told), context.secrets),
    };
  }
}

function notReady(company: CompanyRead): number {
  return company.kind === 'read' ? [...company.read.health.values()].filter((check) => !check.ok).length : 0;
}

function headline(company: CompanyRead): string {
  if (company.kind === 'not run') return 'not run yet (no state yet)';
  if (company.kind === 'unreadable') return `its state cannot be read: ${company.why}`;
  if (company.kind === 'left out') {
    return `left out, its config cannot be read here: ${company.why} (\`supply-sync config validate\` lists every mistake)`;
  }
  const count = notReady(company);
  return count === 0 ? 'ready' : `${count} job(s) not ready`;
}

/**
 * Every company of an office: those whose state cannot be read first, then those with a job not ready, each with
 * its jobs as `status` shows them. One company's unreadable state does not hide the others'; the command then
 * ends in an error naming how many.
 */
async function showAll(context: CliContext, global: GlobalOptions, json: boolean): Promise<void> {
  const now = Date.now();
  const { configs, failed } = await loadCliCompanies(context, global);
  const read = await Promise.all(
    configs.map(async (loaded) => ({
      name: loaded.company?.name ?? loaded.file,
      loaded,
      company: await readCompany(context, loaded, now),
    })),
  );
  const leftOut = [...failed].map(([name, issues]) => ({
    name,
    loaded: undefined,
    company: { kind: 'left out', why: issues.split('\n')[0] ?? issues } as const,
  }));
  const companies: ShownCompany[] = [...leftOut, ...read.sort((a, b) => rank(b.company) - rank(a.company))];
  const first = configs[0]?.company;
  const office = first === undefined ? undefined : officePresence(first.officeState, first.shared);
  if (json) printAllJson(context, office, companies);
  else {
    if (office !== undefined) context.output.line(`office: ${office.detail}`);
    for (const { name, loaded, company } of companies) {
      context.output.line(`== ${name}: ${headline(company)}`);
      if (company.kind === 'read' && loaded !== undefined) printStatus(context, loaded, company.read, now);
    }
  }
  failIfNotShown(companies);
}

interface ShownCompany {
  readonly name: string;
  readonly loaded: LoadedConfig | undefined;
  readonly company: CompanyRead;
}

const rank = (company: CompanyRead): number =>
  company.kind === 'unreadable' ? 1_000_000 : notReady(company);

/** Ends in an error naming how many companies could not be shown, when any could not. */
function failIfNotShown(companies: readonly ShownCompany[]): void {
  const count = (kind: CompanyRead['kind']): number =>
    companies.filter(({ company }) => company.kind === kind).length;
  const plural = (n: number): string => `${n} compan${n === 1 ? 'y' : 'ies'}`;
  const unreadable = count('unreadable');
  const leftOut = count('left out');
  const said = [
    ...(leftOut > 0 ? [`the config of ${plural(leftOut)} could not be read here`] : []),
    ...(unreadable > 0 ? [`the state of ${plural(unreadable)} could not be read`] : []),
  ];
  if (said.length > 0) {
    throw new CliError(`${said.join('; ')} (see above)`, leftOut > 0 ? 'config_invalid' : 'state_unreadable');
  }
}

function printAllJson(context: CliContext, office: unknown, companies: readonly ShownCompany[]): void {
  const all = companies.map(({ name, loaded, company }) => ({
    company: loaded === undefined ? name : (loaded.company?.name ?? null),
    file: loaded?.file ?? null,
    status: company.kind === 'read' ? statusJson(company.read) : null,
    ...(company.kind === 'unreadable' || company.kind === 'left out' ? { error: company.why } : {}),
    ...(company.kind === 'left out' ? { left_out: true } : {}),
  }));
  context.output.line(JSON.stringify(deepScrub({ office, companies: all }, context.secrets), null, 2));
}

export const STATUS_COMMAND: CommandSpec = {
  name: 'status',
  description: 'show each job (last run, last success, errors), dead letters, outbox and inbox',
  options: [
    { flags: '--json', description: 'print JSON' },
    {
      flags: '--all',
      description: 'with an office config: every company, those with a job not ready first',
    },
  ],
  run: showStatus,
};
