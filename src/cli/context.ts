/** Options every command shares, and loading the config with the shipped schemas. */
import type { Command } from 'commander';
import { loadConfig, secretValues, type LoadedConfig } from '../config/index.js';
import type { Output } from './output.js';
import { buildPluginRegistry } from './plugins.js';

export const DEFAULT_CONFIG = 'config/supply-sync.yaml';

export interface GlobalOptions {
  config: string;
  debug: boolean;
}

export interface CliContext {
  readonly output: Output;
  /** Secret values seen so far (from the loaded config), scrubbed from any error printed. */
  readonly secrets: string[];
  readonly env: Readonly<Record<string, string | undefined>>;
}

export function globalOptions(command: Command): GlobalOptions {
  const options = command.optsWithGlobals<{ config?: string; debug?: boolean }>();
  return { config: options.config ?? DEFAULT_CONFIG, debug: options.debug === true };
}

export async function loadCliConfig(context: CliContext, file: string): Promise<LoadedConfig> {
  const registry = await buildPluginRegistry();
  const loaded = loadConfig(file, { env: context.env, registry });
  context.secrets.push(...secretValues(loaded.config, registry));
  return loaded;
}
