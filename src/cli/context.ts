/** Options every command shares, and loading the config with the shipped schemas. */
import type { Command } from 'commander';
import {
  loadCompany,
  loadConfigSet,
  loadOfficeToRun,
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
  const loaded = set?.loaded ?? loadCompany(global.config, global.company as string, options);
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

/** Every company of an office config (`--all`), or the one config as a list of one. */
export async function loadCliConfigs(context: CliContext, global: GlobalOptions): Promise<LoadedConfig[]> {
  if (global.company !== undefined) {
    throw new CliError(
      `--all shows every company; leave --company ${global.company} out (or unset SUPPLY_SYNC_COMPANY), or leave --all out`,
      'usage',
      EXIT_USAGE,
    );
  }
  const registry = await buildPluginRegistry();
  const set = loadConfigSet(global.config, { env: context.env, registry });
  const all = set.kind === 'office' ? [...set.office.companies.values()] : [set.loaded];
  if (set.kind === 'office')
    for (const warning of set.office.warnings) context.output.note(`warning: ${warning}`);
  for (const loaded of all) context.secrets.push(...secretValues(loaded.config, registry));
  return all;
}

function chooseCompany(office: OfficeConfig, hint: string): CliError {
  const names = [...office.companies.keys()];
  const shown =
    names.length > 10 ? `${names.slice(0, 10).join(', ')} and ${names.length - 10} more` : names.join(', ');
  return new CliError(
    `${office.file} is an office of ${names.length} companies (${shown}): choose one with --company NAME${hint}`,
    'usage',
    EXIT_USAGE,
  );
}
