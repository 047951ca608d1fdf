/** Options every command shares, and loading the config with the shipped schemas. */
import type { Command } from 'commander';
import {
  ConfigError,
  loadCompany,
  loadConfigSet,
  loadOfficeToList,
  loadOfficeToRun,
  NotAnOfficeError,
  secretValues,
  type ConfigSet,
  type LoadedConfig,
  type OfficeConfig,
} from '../config/index.js';
import { CliError, EXIT_USAGE } from './errors.js';
import type { Output } from './output.js';
import { buildPluginRegistry } from './plugins.js';

export const DEFAULT_CONFIG = 'config/supply-sync.yaml';

export interface GlobalOptions {
  config: string;
  /** The company of an office config (`--company`). */
  company?: string | undefined;
  /**
   * Where the company came from when a command's argument named it (`companies pause north`, `jobs pause
   * north/journal`), and what to do instead with a config of one company; `--company` when absent.
   */
  companyFrom?: { readonly label: string; readonly instead: string } | undefined;
  debug: boolean;
}

export interface CliContext {
  readonly output: Output;
  /** Secret values seen so far (from the loaded config), scrubbed from any error printed. */
  readonly secrets: string[];
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function globalOptions(command: Command): GlobalOptions {
  const options = command.optsWithGlobals<{ config?: string; company?: string; debug?: boolean }>();
  return {
    config: options.config ?? DEFAULT_CONFIG,
    company: options.company,
    debug: options.debug === true,
  };
}

/** The config a command acts on: the file, or with an office config the company `--company` names. */
export async function loadCliConfig(
  context: CliContext,
  global: GlobalOptions,
  /** What to say beside "choose one with --company" (a command that could run more than one). */
  officeHint = '',
): Promise<LoadedConfig> {
  const registry = await buildPluginRegistry();
  const options = { env: context.env, registry };
  const set = global.company === undefined ? loadConfigSet(global.config, options) : undefined;
  if (set?.kind === 'office') throw chooseCompany(set.office, officeHint);
  const loaded = set?.loaded ?? companyNamed(global, options);
  context.secrets.push(...secretValues(loaded.config, registry));
  return loaded;
}

/**
 * The config file as `run` reads it: one company's config, or an office with every company's, those with a mistake
 * set aside (they are shown failed and the others run).
 */
export async function loadCliConfigSet(context: CliContext, global: GlobalOptions): Promise<ConfigSet> {
  const registry = await buildPluginRegistry();
  if (global.company !== undefined) {
    const loaded = loadCompany(global.config, global.company, { env: context.env, registry });
    context.secrets.push(...secretValues(loaded.config, registry));
    return { kind: 'single', loaded };
  }
  const set = loadOfficeToRun(global.config, { env: context.env, registry });
  const all = set.kind === 'office' ? [...set.office.companies.values()] : [set.loaded];
  for (const loaded of all) context.secrets.push(...secretValues(loaded.config, registry));
  return set;
}

/** Every company of an office config (`config validate`: one with a mistake fails the whole), or the one config. */
export async function loadCliConfigs(context: CliContext, global: GlobalOptions): Promise<LoadedConfig[]> {
  return (await loadCliCompanies(context, global, false)).configs;
}

export interface CliCompanies {
  readonly configs: LoadedConfig[];
  /** Companies left out for a mistake in their config, each with its problems (tolerant reads only). */
  readonly failed: ReadonlyMap<string, string>;
}

/**
 * Every company of an office config for `--all`; `tolerant`: a company with a mistake in its config is left out,
 * with a warning, and the others are shown. The one config of a single-company file as a list of one.
 */
export async function loadCliCompanies(
  context: CliContext,
  global: GlobalOptions,
  tolerant = true,
): Promise<CliCompanies> {
  if (global.company !== undefined) {
    throw new CliError(
      `--all takes every company; leave --company ${global.company} out (or unset SUPPLY_SYNC_COMPANY), or leave --all out`,
      'usage',
      EXIT_USAGE,
    );
  }
  const registry = await buildPluginRegistry();
  const options = { env: context.env, registry };
  const set = tolerant ? loadOfficeToList(global.config, options) : loadConfigSet(global.config, options);
  if (set.kind === 'single') {
    context.secrets.push(...secretValues(set.loaded.config, registry));
    return { configs: [set.loaded], failed: new Map() };
  }
  for (const warning of set.office.warnings) context.output.note(`warning: ${warning}`);
  for (const line of leftOutWarnings(set.office.failed)) context.output.note(line);
  const configs = [...set.office.companies.values()];
  if (configs.length === 0 && set.office.failed.size > 0) {
    throw new CliError(
      `every company of ${global.config} is left out by the mistakes above: fix them, then run the command again`,
      'config_invalid',
      EXIT_USAGE,
    );
  }
  for (const loaded of configs) context.secrets.push(...secretValues(loaded.config, registry));
  return { configs, failed: set.office.failed };
}

/**
 * One warning per distinct first mistake, naming every company it leaves out: a mistake in the office file itself
 * (an unset variable there) leaves every company out, and is said once, naming the office file.
 */
function leftOutWarnings(failed: ReadonlyMap<string, string>): string[] {
  const byMistake = new Map<string, string[]>();
  for (const [name, issues] of failed) {
    const first = issues.split('\n')[0] ?? issues;
    byMistake.set(first, [...(byMistake.get(first) ?? []), name]);
  }
  return [...byMistake].map(([mistake, names]) => {
    const who = names.length === 1 ? `company ${names[0]} is` : `companies ${names.join(', ')} are`;
    return `warning: ${who} left out: ${mistake} (\`supply-sync config validate\` lists every mistake)`;
  });
}

/** A company of the office; a name the office does not have is a usage mistake, not a broken config. */
function companyNamed(global: GlobalOptions, options: Parameters<typeof loadCompany>[2]): LoadedConfig {
  const name = global.company as string;
  try {
    return loadCompany(global.config, name, options);
  } catch (error) {
    if (error instanceof NotAnOfficeError && global.companyFrom !== undefined) {
      throw new CliError(
        `${global.companyFrom.label}: ${error.file} is the config of one company, not an office (it has no ` +
          `companies: block): ${global.companyFrom.instead}`,
        'usage',
        EXIT_USAGE,
      );
    }
    const [issue, ...more] = error instanceof ConfigError ? error.issues : [];
    if (issue === undefined || more.length > 0 || issue.path !== 'companies') throw error;
    throw new CliError(
      `${global.companyFrom?.label ?? `--company ${name}`}: ${issue.message}`,
      'usage',
      EXIT_USAGE,
    );
  }
}

function chooseCompany(office: OfficeConfig, hint: string): CliError {
  const names = [...office.companies.keys()];
  const shown =
    names.length > 10 ? `${names.slice(0, 10).join(', ')} and ${names.length - 10} more` : names.join(', ');
  return new CliError(
    `${office.file} is an office of ${names.length} companies (${shown}): choose one with --company NAME` +
      `${hint === '' ? ' (status, runs and reconcile journal also take --all)' : hint}`,
    'usage',
    EXIT_USAGE,
  );
}
