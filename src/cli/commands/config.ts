/** `supply-sync config validate|schema`. */
import type { Command } from 'commander';
import { configJsonSchema, redactConfig } from '../../config/index.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { buildConfigRegistry } from '../plugins.js';

export function registerConfigCommands(program: Command, context: CliContext): void {
  const config = program.command('config').description('check the config file, or print its JSON Schema');

  config
    .command('validate')
    .description('validate the config file: every problem with file, line, key and what was expected')
    .option('--print', 'print the resulting config with defaults applied and secrets redacted')
    .action(async (options: { print?: boolean }, command: Command) => {
      const { config: file } = globalOptions(command);
      const loaded = await loadCliConfig(context, file);
      for (const warning of loaded.warnings) context.output.note(`warning: ${warning}`);
      const { connectors, jobs } = loaded.config;
      context.output.line(
        `${file}: OK (${Object.keys(connectors).length} connectors, ${Object.keys(jobs).length} jobs)`,
      );
      if (options.print) {
        const registry = await buildConfigRegistry();
        context.output.line(JSON.stringify(redactConfig(loaded.config, registry), null, 2));
      }
    });

  config
    .command('schema')
    .description('print the JSON Schema of the config file (for editor completion and checks)')
    .action(async () => {
      const registry = await buildConfigRegistry();
      context.output.line(JSON.stringify(configJsonSchema(registry), null, 2));
    });
}
