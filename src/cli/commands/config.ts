/** `supply-sync config validate|schema`. */
import type { CommandSpec, Invocation } from '../command-spec.js';
import { configJsonSchema, redactConfig } from '../../config/index.js';
import type { Config, OfficeConfig } from '../../config/index.js';
import { describePreflightProblem } from '../../daemon/services/preflight-service.js';
import {
  type CliContext,
  globalOptions,
  loadCliConfig,
  loadCliConfigSet,
  loadCliConfigs,
} from '../context.js';
import { describeOfficeReload, reloadRunningOffice } from '../office-command.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { giveCommand } from '../control.js';
import { withStateChange } from '../state-access.js';
import type { ReloadResult } from '../../daemon/control/config-reload.js';
import type { PluginRegistry } from '../../plugin/index.js';
import { buildPluginRegistry } from '../plugins.js';

/** What each connector can tell from its block alone (a statement parameter no flow provides), one line each. */
function staticProblems(file: string, config: Config, registry: PluginRegistry): string[] {
  const known = new Set(registry.connectorTypes());
  return Object.entries(config.connectors).flatMap(([name, block]) => {
    const { type, ...settings } = block;
    if (!known.has(type)) return [];
    return registry
      .staticPreflight(type, settings)
      .filter((problem) => problem.status === 'fail')
      .map((problem) => describePreflightProblem(file, name, problem));
  });
}

async function validate({ context, options, command }: Invocation<{ print?: boolean }>): Promise<void> {
  const global = globalOptions(command);
  const configs =
    global.company === undefined
      ? await loadCliConfigs(context, global)
      : [await loadCliConfig(context, global)];
  const registry = await buildPluginRegistry();
  const problems = configs.flatMap((loaded) => {
    for (const warning of loaded.warnings) context.output.note(`warning: ${warning}`);
    return staticProblems(loaded.file, loaded.config, registry);
  });
  for (const problem of problems) context.output.note(problem);
  if (problems.length > 0) {
    throw new CliError(
      `config is invalid: ${problems.length} problem${problems.length === 1 ? '' : 's'}; \`supply-sync doctor\` also checks the statements against the database`,
      'config_invalid',
      EXIT_USAGE,
    );
  }
  if (configs.length > 1 || configs[0]?.company !== undefined) {
    context.output.line(`${global.config}: OK (${plural(configs.length, 'company', 'companies')})`);
  }
  for (const loaded of configs) {
    const { connectors, jobs } = loaded.config;
    const what = `${plural(Object.keys(connectors).length, 'connector')}, ${plural(Object.keys(jobs).length, 'job')}`;
    const company = loaded.company;
    context.output.line(
      company === undefined
        ? `${loaded.file}: OK (${what})`
        : `  ${company.name}: ${loaded.file} OK (${what}; state ${loaded.config.state.url === undefined ? loaded.config.state.path : 'on PostgreSQL'})`,
    );
    if (options.print) context.output.line(JSON.stringify(redactConfig(loaded.config, registry), null, 2));
  }
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

async function reload(invocation: Invocation<{ json?: boolean }>): Promise<void> {
  const { context, options, command } = invocation;
  const global = globalOptions(command);
  if (global.company === undefined) {
    const set = await loadCliConfigSet(context, global);
    if (set.kind === 'office') return reloadOffice(context, set.office, options.json === true);
  }
  // The file given is checked here first: an invalid one is refused with the usual error, nothing is queued.
  const loaded = await loadCliConfig(context, global);
  const given = await giveCommand(context, {
    loaded,
    action: { kind: 'config.reload' },
    direct: () => noDaemon(loaded.config),
  });
  if (given.via === 'queued') throw new Error('a config reload is always waited for');
  const result = given.result;
  if (options.json) {
    context.output.line(JSON.stringify(result ?? { reloaded: false, daemon: false }, null, 2));
    return;
  }
  if (result === null) {
    context.output.line(
      `no daemon is running: ${loaded.file} is valid, and the daemon reads it when it starts`,
    );
    return;
  }
  context.output.line(
    result.changed.length === 0
      ? `config reloaded from ${result.file}: the mappings are unchanged`
      : `config reloaded from ${result.file}: mappings ${result.changed.join(', ')} changed; ` +
          'the jobs use them from their next run',
  );
}

/** The whole office: companies added, removed or changed are taken up by the running office process. */
async function reloadOffice(context: CliContext, office: OfficeConfig, json: boolean): Promise<void> {
  // Told by the office with each company's problem when one runs; without one, here.
  const result = await reloadRunningOffice(context, office);
  if (json) context.output.line(JSON.stringify(result ?? { reloaded: false, daemon: false }, null, 2));
  if (result === null) {
    for (const [name] of office.failed) {
      context.output.note(
        `warning: company ${name} has mistakes in its config (\`supply-sync config validate\` lists them)`,
      );
    }
    const counted = `${office.companies.size + office.failed.size} companies`;
    if (!json)
      context.output.line(`no office is running: ${office.file} and its ${counted} are read when it starts`);
    return;
  }
  if (!json) context.output.line(describeOfficeReload(result));
  const left = result.refused.length + result.failed.length;
  if (left > 0) {
    throw new CliError(
      `${left} ${left === 1 ? 'company was' : 'companies were'} not reloaded as the files say (above); the others were`,
      'partly_done',
    );
  }
  if (result.report?.change === 'refused') {
    throw new CliError('the office report was not reloaded as the office file says (above)', 'partly_done');
  }
}

async function printSchema({ context }: Invocation): Promise<void> {
  const registry = await buildPluginRegistry();
  context.output.line(JSON.stringify(configJsonSchema(registry), null, 2));
}

export const CONFIG_COMMANDS: CommandSpec = {
  name: 'config',
  description: 'check the config file, or print its JSON Schema',
  subcommands: [
    {
      name: 'validate',
      description: 'validate the config file: every problem with file, line, key and what was expected',
      options: [
        {
          flags: '--print',
          description: 'print the resulting config with defaults applied and secrets redacted',
        },
      ],
      run: validate,
    },
    {
      name: 'reload',
      description:
        "have the running daemon read the config file again, without a stop: new mappings apply from each job's " +
        'next run; any other change is refused, naming the keys that need a restart, and nothing changes. On an ' +
        'office without --company: companies added are started, removed ones stopped, changed ones restarted alone',
      options: [{ flags: '--json', description: 'print JSON' }],
      run: reload,
    },
    {
      name: 'schema',
      description: 'print the JSON Schema of the config file (for editor completion and checks)',
      run: printSchema,
    },
  ],
};

/**
 * Without a daemon there is nothing to reload (null); while one holds the state this rejects as the other commands'
 * direct paths do, and the reload is queued for it.
 */
async function noDaemon(config: Config): Promise<ReloadResult | null> {
  try {
    await withStateChange(config, 'config reload', () => undefined);
  } catch (error) {
    if (!(error instanceof CliError && error.code === 'state_missing')) throw error;
  }
  return null;
}
