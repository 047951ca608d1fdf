/**
 * Loading a config that is either one company or an office: a file with a `companies:` block, shared by every
 * company, and a folder with one file per company merged over it (company-source.ts).
 */
import { readdirSync, statSync, type Dirent } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { COMPANY_KEYS, COMPANY_NAME, companiesSchema } from './companies-schema.js';
import {
  companyFolder,
  companySource,
  mergeOver,
  officePart,
  officeStateDir,
  officeStatePath,
} from './company-source.js';
import { ConfigError, formatIssue, formatPath, type ConfigIssue } from './errors.js';
import {
  isOffice,
  loadConfig,
  readConfigText,
  sourceOptions,
  validateSource,
  type LoadedConfig,
  type LoadOptions,
} from './load.js';
import { readConfigSource, type ConfigSource } from './source.js';
import { coreConfigSchema } from './schema.js';
import { closestMatch } from './did-you-mean.js';
import { notificationsSchema, type NotificationsConfig } from './notifications-schema.js';

/** The office's morning report (companies.report), with the office file's own notifications it is sent through. */
export interface OfficeReportConfig {
  readonly at: string;
  readonly channels: readonly string[];
  /** The office file's `notifications` block as written there, without any company's changes. */
  readonly notifications: NotificationsConfig;
}

export interface OfficeConfig {
  readonly file: string;
  /** The folder of company files. */
  readonly dir: string;
  /** The office's own state folder (the folder of its state.path): its control token; companies/ under it. */
  readonly stateDir: string;
  /** The office file's `state.path`: the office's own state file (its command queue). */
  readonly statePath: string;
  /**
   * The office file's `state.url` (resolved): the office's own PostgreSQL database, where several office processes
   * sharing the companies see each other. Undefined when the office file sets none.
   */
  readonly stateUrl: string | undefined;
  /**
   * What the office file itself sets of the keys only it may set (`server`, `log`, `timezone`, `ha`, `health`...)
   * and of `state`, as written: a running office cannot take a change to them.
   */
  readonly settings: Readonly<Record<string, unknown>>;
  /** The office's bound on runs going at once (companies.max_concurrent_runs). */
  readonly maxConcurrentRuns: number;
  /** companies.report: the office's morning report; undefined when not set. */
  readonly report: OfficeReportConfig | undefined;
  /** Read for `run` only: the companies set aside for a mistake in their config, each with its problems. */
  readonly failed: ReadonlyMap<string, string>;
  /** Every company's config by name, in name order. */
  readonly companies: ReadonlyMap<string, LoadedConfig>;
  /** Files in the folder that were not read as companies. */
  readonly warnings: readonly string[];
}

export type ConfigSet =
  | { readonly kind: 'single'; readonly loaded: LoadedConfig }
  | { readonly kind: 'office'; readonly office: OfficeConfig };

type Data = Record<string, unknown>;
const COMPANY_FILE = /\.ya?ml$/;

/** Reads a config file: one company, or an office with every company in its folder (all checked, all reported). */
export function loadConfigSet(file: string, options: LoadOptions = {}): ConfigSet {
  const source = readConfigSource(file, readConfigText(file, options), sourceOptions(options));
  if (!isOffice(source.data)) return { kind: 'single', loaded: validateSource(source, options) };
  return { kind: 'office', office: loadOffice(source, options) };
}

/**
 * An office as `run` reads it: a company with a mistake in its config is set aside in `failed` (shown failed, with
 * its problems, while the others run); a mistake of the office's own (its file, the folder) still stops the start,
 * and so does a mistake of the office file that every company shows (an unset variable it names).
 */
export function loadOfficeToRun(file: string, options: LoadOptions = {}): ConfigSet {
  return loadTolerating(file, options, 'company');
}

/**
 * An office as the `--all` commands read it: every company with a mistake in its config, the office file's included,
 * is set aside in `failed` (left out with a warning) and the others are shown.
 */
export function loadOfficeToList(file: string, options: LoadOptions = {}): ConfigSet {
  return loadTolerating(file, options, 'any');
}

function loadTolerating(file: string, options: LoadOptions, tolerate: 'company' | 'any'): ConfigSet {
  const source = readConfigSource(file, readConfigText(file, options), sourceOptions(options));
  if (!isOffice(source.data)) return { kind: 'single', loaded: validateSource(source, options) };
  return { kind: 'office', office: loadOffice(source, options, { tolerate }) };
}

/** A company was asked of a config of one company (no `companies:` block). */
export class NotAnOfficeError extends ConfigError {
  constructor(
    readonly file: string,
    readonly company: string,
  ) {
    super([
      {
        file,
        path: 'companies',
        message: `has no companies: block, so no company "${company}": leave --company out (and unset SUPPLY_SYNC_COMPANY)`,
      },
    ]);
  }
}

/** One company of an office, read afresh (a company daemon's config reload): other companies are not read. */
export function loadCompany(officeFile: string, name: string, options: LoadOptions = {}): LoadedConfig {
  const source = readConfigSource(officeFile, readConfigText(officeFile, options), sourceOptions(options));
  if (source.data === undefined) throw new ConfigError(source.issues);
  if (!isOffice(source.data)) throw new NotAnOfficeError(officeFile, name);
  return loadOffice(source, options, { only: name }).companies.get(name) as LoadedConfig;
}

interface OfficeRead {
  /** Only this company (a reload, or `--company`). */
  readonly only?: string;
  /**
   * Which mistakes set a company aside in `failed` instead of failing the whole office: `company`, all but a mistake
   * of the office file that every company shows (`run`, a reload); `any`, every one (the `--all` commands).
   */
  readonly tolerate?: 'company' | 'any';
}

function loadOffice(source: ConfigSource, options: LoadOptions, read: OfficeRead = {}): OfficeConfig {
  const { dir, maxConcurrentRuns, report } = companiesBlock(source);
  const { files, warnings } = companyFiles(source, dir);
  const { only } = read;
  const chosen = only === undefined ? files : files.filter((file) => companyName(file) === only);
  if (only !== undefined && chosen.length === 0)
    throw new ConfigError([unknownCompany(source, dir, only, files)]);
  const officeData = officePart(source);
  const companies = new Map<string, LoadedConfig>();
  const own = new Map<string, ConfigSource>();
  const issues: FoundIssue[] = [];
  for (const file of chosen) {
    try {
      const loaded = loadOne(source, officeData, file, options);
      companies.set(companyName(file), loaded.loaded);
      own.set(companyName(file), loaded.own);
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      issues.push(...error.issues.map((issue) => ({ issue, company: companyName(file), file })));
    }
  }
  for (const issue of sharedStates(companies, own)) {
    issues.push({ issue, company: companyName(issue.file), file: issue.file });
  }
  const stateDir = officeStateDir(officeData, source.file);
  const statePath = officeStatePath(officeData, source.file);
  const companyKeys: readonly string[] = COMPANY_KEYS;
  const settings = Object.fromEntries(
    Object.entries(officeData).filter(([key]) => key === 'state' || !companyKeys.includes(key)),
  );
  const url = officeStateUrl(source, officeData);
  const office = {
    file: source.file,
    dir,
    stateDir,
    statePath,
    stateUrl: typeof url === 'string' ? url : undefined,
    settings,
    maxConcurrentRuns,
    report,
    companies,
    warnings,
  };
  if (issues.length === 0) return { ...office, failed: new Map() };
  const { tolerate } = read;
  // A mistake of the office file that every company shows is the office's: `run` stops as `config validate` fails.
  if (tolerate === undefined || (tolerate === 'company' && inEveryCompany(issues, chosen.length))) {
    throw new ConfigError(merged(issues, chosen.length));
  }
  return { ...office, failed: setAside(companies, issues) };
}

/** The companies with a mistake, each with its problems as `config validate` words them; taken out of `companies`. */
function setAside(companies: Map<string, LoadedConfig>, issues: readonly FoundIssue[]): Map<string, string> {
  const failed = new Map<string, string>();
  for (const { issue, company } of issues) {
    companies.delete(company);
    const told = failed.get(company);
    failed.set(company, told === undefined ? formatIssue(issue) : `${told}\n${formatIssue(issue)}`);
  }
  return failed;
}

function companiesBlock(source: ConfigSource): {
  dir: string;
  maxConcurrentRuns: number;
  report: OfficeReportConfig | undefined;
} {
  const raw = (source.data as Data).companies ?? {};
  const block = companiesSchema.safeParse(raw);
  if (!block.success) throw new ConfigError(located(source, 'companies', block.error.issues));
  const report = block.data.report;
  return {
    dir: resolve(dirname(source.file), block.data.dir),
    maxConcurrentRuns: block.data.max_concurrent_runs,
    report:
      report === undefined ? undefined : { ...report, notifications: officeNotifications(source, report) },
  };
}

/** The office file's own notifications block, which must define every channel the office report names. */
function officeNotifications(
  source: ConfigSource,
  report: { channels: readonly string[] },
): NotificationsConfig {
  const raw = (source.data as Data).notifications;
  const parsed = notificationsSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new ConfigError(located(source, 'notifications', parsed.error.issues));
  const defined = Object.keys(parsed.data.channels);
  const unknown = report.channels.flatMap((name, index) => (defined.includes(name) ? [] : [{ name, index }]));
  if (unknown.length === 0) return parsed.data;
  throw new ConfigError(
    unknown.map(({ name, index }) => {
      const path = ['companies', 'report', 'channels', index];
      return {
        file: source.file,
        ...source.locate(path),
        path: formatPath(path),
        message: `no channel named "${name}" under notifications.channels of this file (defined: ${defined.join(', ') || 'none'}); the office report is sent through the office file's own channels`,
      };
    }),
  );
}

function located(
  source: ConfigSource,
  key: string,
  issues: ReadonlyArray<{ path: readonly PropertyKey[]; message: string }>,
): ConfigIssue[] {
  return issues.map((issue) => {
    const path = [key, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))];
    return { file: source.file, ...source.locate(path), path: formatPath(path), message: issue.message };
  });
}

/**
 * The office's own database: with several office processes, where they see each other. Every company sets its own
 * state.url, so nothing else reads the office's: checked here, or a variable left unset would turn the sharing off
 * without a word.
 */
function officeStateUrl(source: ConfigSource, officeData: Data): string | undefined {
  const url = ((officeData.state ?? {}) as Data).url;
  if (url === undefined || url === null) return undefined;
  if (typeof url === 'string' && /^postgres(ql)?:\/\/[^/$]/.test(url)) return url;
  const unset =
    typeof url === 'string' && url.includes('${') ? ' (the environment variable it names is not set)' : '';
  throw new ConfigError([
    {
      file: source.file,
      ...source.locate(['state', 'url']),
      path: 'state.url',
      message: `expected a PostgreSQL URL, postgres://user:password@host:port/database${unset}: the office's own database, where its processes see each other`,
    },
  ]);
}

function companyName(file: string): string {
  return basename(file, extname(file));
}

function companyFiles(source: ConfigSource, dir: string): { files: string[]; warnings: string[] } {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    const fix = code === 'ENOENT' ? 'create it and add one <company>.yaml per company' : 'make it readable';
    throw new ConfigError([atCompanies(source, `cannot read the company folder ${dir} (${code}): ${fix}`)]);
  }
  const visible = entries
    .filter((entry) => !entry.name.startsWith('.'))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  // A link to a file counts as the file (companies.d/beta.yaml -> ../available/beta.yaml).
  const isFile = (entry: Dirent): boolean =>
    entry.isFile() || (entry.isSymbolicLink() && statIsFile(join(dir, entry.name)));
  const files = visible.filter((entry) => isFile(entry) && COMPANY_FILE.test(entry.name));
  const warnings = visible
    .filter((entry) => !entry.isDirectory() && !isDirectoryLink(dir, entry) && !files.includes(entry))
    .map((entry) => `${join(dir, entry.name)}: not read (a company file is a .yaml or .yml file)`);
  if (files.length === 0) {
    throw new ConfigError([
      atCompanies(source, `the company folder ${dir} holds no company file: add <company>.yaml`),
    ]);
  }
  const paths = files.map((entry) => join(dir, entry.name));
  const seen = new Set<string>();
  const twice = paths.find((path) => {
    const name = companyName(path);
    if (seen.has(name)) return true;
    seen.add(name);
    return false;
  });
  if (twice !== undefined) {
    throw new ConfigError([
      { file: twice, path: '', message: `company "${companyName(twice)}" has two files; keep one` },
    ]);
  }
  return { files: paths, warnings };
}

function statIsFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function isDirectoryLink(dir: string, entry: Dirent): boolean {
  if (!entry.isSymbolicLink()) return false;
  try {
    return statSync(join(dir, entry.name)).isDirectory();
  } catch {
    return false;
  }
}

function atCompanies(source: ConfigSource, message: string): ConfigIssue {
  return { file: source.file, ...source.locate(['companies']), path: 'companies', message };
}

function unknownCompany(
  source: ConfigSource,
  dir: string,
  name: string,
  files: readonly string[],
): ConfigIssue {
  const known = files.map(companyName).join(', ');
  return atCompanies(
    source,
    `no company "${name}": there is no ${join(dir, `${name}.yaml`)} (companies: ${known})`,
  );
}

function loadOne(
  office: ConfigSource,
  officeData: Data,
  file: string,
  options: LoadOptions,
): { loaded: LoadedConfig; own: ConfigSource } {
  const name = companyName(file);
  if (!COMPANY_NAME.test(name)) {
    throw new ConfigError([
      {
        file,
        path: '',
        message: `the file's name is the company's name, "${name}": use letters, digits, - and _ (at most 64, the first a letter or digit)`,
      },
    ]);
  }
  const text = readConfigText(file, options);
  const own = readConfigSource(
    file,
    text,
    sourceOptions(options, (raw) => mergeOver(officeData, raw)),
  );
  if (own.data === undefined) throw new ConfigError(own.issues);
  // Misplaced keys are reported and left out, so the same check also reports what else is wrong.
  const misplaced = officeOnlyKeys(own, office.file).concat(sharedPostgres(own, officeData));
  const kept = { ...own, data: withoutKeys(own.data as Data, misplaced) };
  const merged = companySource(office, officeData, kept, companyFolder(officeData, office.file, name));
  try {
    const loaded = validateSource(merged, options);
    if (misplaced.length > 0) throw new ConfigError(misplaced);
    const company = {
      ...{ name, office: office.file, officeState: officeStatePath(officeData, office.file) },
      shared: officeSharesCompanies(officeData),
    };
    return { loaded: { ...loaded, company }, own };
  } catch (error) {
    if (!(error instanceof ConfigError) || misplaced.length === 0) throw error;
    throw new ConfigError([...misplaced, ...error.issues.filter((issue) => !misplaced.includes(issue))]);
  }
}

/** The office file sets state.url (officeStateUrl checked it): several office processes share its companies. */
function officeSharesCompanies(officeData: Data): boolean {
  const url = ((officeData.state ?? {}) as Data).url;
  return url !== undefined && url !== null;
}

function withoutKeys(data: Data, issues: readonly ConfigIssue[]): Data {
  const out = { ...data };
  for (const issue of issues) if (issue.path !== 'state.url') delete out[issue.path];
  return out;
}

function officeOnlyKeys(own: ConfigSource, officeFile: string): ConfigIssue[] {
  const allowed: readonly string[] = COMPANY_KEYS;
  return Object.keys(own.data as Data)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({
      file: own.file,
      ...own.locate([key], true),
      path: key,
      message: OFFICE_KEYS.has(key)
        ? `${key} is set once for the whole office, in ${officeFile}; a company file may set ${COMPANY_KEYS.join(', ')}`
        : `unknown key "${key}"${didYouMean(key)}; a company file may set ${COMPANY_KEYS.join(', ')}`,
    }));
}

/** The keys of the office's own part: a company file that sets one is told where it belongs. */
const OFFICE_KEYS: ReadonlySet<string> = new Set(Object.keys(coreConfigSchema.shape));

function didYouMean(key: string): string {
  const close = closestMatch(key, [...COMPANY_KEYS]);
  return close === undefined ? '' : ` (did you mean "${close}"?)`;
}

/** A company never inherits the office's PostgreSQL database: two companies' cursors and runs would mix. */
function sharedPostgres(own: ConfigSource, officeData: Data): ConfigIssue[] {
  const officeUrl = (officeData.state as Data | undefined)?.url;
  const ownUrl = ((own.data as Data).state as Data | undefined)?.url;
  if (officeUrl === undefined || ownUrl !== undefined) return [];
  return [
    {
      file: own.file,
      ...own.locate(['state'], true),
      path: 'state.url',
      message:
        "the office's state is on PostgreSQL: give this company a database of its own here (state.url or state.url_file)",
    },
  ];
}

/**
 * Two companies on one state file or database would share cursors, runs and dead letters: told at each company
 * file that sets the shared state itself (the others use their default), naming the companies it is shared with.
 */
function sharedStates(
  companies: ReadonlyMap<string, LoadedConfig>,
  own: ReadonlyMap<string, ConfigSource>,
): ConfigIssue[] {
  const byState = new Map<string, string[]>();
  for (const [name, loaded] of companies) {
    const key = loaded.config.state.url ?? loaded.config.state.path;
    byState.set(key, [...(byState.get(key) ?? []), name]);
  }
  return [...byState.values()]
    .filter((names) => names.length > 1)
    .flatMap((names) => {
      const setting = names.filter((name) => setsState(own.get(name)));
      return (setting.length > 0 ? setting : names).map((name) => {
        const loaded = companies.get(name) as LoadedConfig;
        const key = loaded.config.state.url === undefined ? 'path' : 'url';
        const others = names.filter((other) => other !== name).join(', ');
        return {
          file: loaded.file,
          ...own.get(name)?.locate(['state', key]),
          path: `state.${key}`,
          message: `the same state as company ${others}; every company needs its own (leave state out for the default)`,
        };
      });
    });
}

function setsState(source: ConfigSource | undefined): boolean {
  const state = (source?.data as Data | undefined)?.state as Data | undefined;
  return state?.path !== undefined || state?.url !== undefined;
}

interface FoundIssue {
  readonly issue: ConfigIssue;
  /** The company whose config showed the issue. */
  readonly company: string;
  /** That company's own file. */
  readonly file: string;
}

/** The issues by place, each with the companies it was found for ('' for an issue in the company's own file). */
function byPlace(found: readonly FoundIssue[]): Array<{ issue: ConfigIssue; companies: Set<string> }> {
  const places = new Map<string, { issue: ConfigIssue; companies: Set<string> }>();
  for (const { issue, company, file } of found) {
    const key = JSON.stringify([issue.file, issue.line, issue.column, issue.path, issue.message]);
    const entry = places.get(key) ?? { issue, companies: new Set<string>() };
    // An issue in the company's own file needs no "found for": the file names the company.
    entry.companies.add(issue.file === file ? '' : company);
    places.set(key, entry);
  }
  return [...places.values()];
}

/**
 * One issue per place: a problem in the office's part, found while checking several companies, is told once with
 * the companies it was found for.
 */
function merged(found: readonly FoundIssue[], companyCount: number): ConfigIssue[] {
  return byPlace(found).map(({ issue, companies }) => {
    if (companies.has('')) return issue;
    const which =
      companies.size === companyCount && companyCount > 1
        ? 'every company'
        : `company ${[...companies].join(', ')}`;
    return { ...issue, message: `${issue.message} (found for ${which})` };
  });
}

/** A problem in the office's part that every company shows (an unset variable of the office file, say). */
function inEveryCompany(found: readonly FoundIssue[], companyCount: number): boolean {
  return byPlace(found).some(({ companies }) => !companies.has('') && companies.size === companyCount);
}

/** A loaded config read again from its files (a reload): a company's from its office and its own file. */
export function readAgain(loaded: LoadedConfig, options: LoadOptions = {}): LoadedConfig {
  return loaded.company === undefined
    ? loadConfig(loaded.file, options)
    : loadCompany(loaded.company.office, loaded.company.name, options);
}

/** The files a loaded config was read from, as messages name them: a company's office file and its own. */
export function configFiles(loaded: LoadedConfig): string {
  return loaded.company === undefined ? loaded.file : `${loaded.company.office} with ${loaded.file}`;
}
