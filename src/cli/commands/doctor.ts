/** `supply-sync doctor`: one line per check (config, state file, API, connectors), OK/WARN/FAIL with the fix. */
import type { CommandSpec, Invocation } from '../command-spec.js';
import { apiKeySettingName, ConfigError, formatIssue } from '../../config/index.js';
import { globalOptions, loadCliConfig } from '../context.js';
import { apiChecks } from '../doctor/api-checks.js';
import { check, formatCheck, type DoctorCheck } from '../doctor/check.js';
import { connectorChecks } from '../doctor/connector-checks.js';
import { notificationChecks } from '../doctor/notification-checks.js';
import { stateChecks } from '../doctor/state-checks.js';
import { CliError } from '../errors.js';
import { buildPluginRegistry } from '../plugins.js';

async function runDoctor({ context, options, command }: Invocation<{ offline?: boolean }>): Promise<void> {
  const { config: file } = globalOptions(command);
  const report = (item: DoctorCheck) => context.output.line(formatCheck(item));
  const results: DoctorCheck[] = [];
  const add = (items: DoctorCheck[]) => {
    items.forEach(report);
    results.push(...items);
  };
  let loaded;
  try {
    loaded = await loadCliConfig(context, globalOptions(command));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const first = error.issues[0];
    add([
      check(
        'fail',
        'config',
        first ? formatIssue(first) : error.message,
        first?.path === ''
          ? 'pass the config file with --config FILE (or SUPPLY_SYNC_CONFIG), or start one from an example in config/'
          : `run \`supply-sync config validate --config ${file}\` and fix each line`,
      ),
    ]);
    throw new CliError('doctor found problems', 'doctor_failed');
  }
  const { config } = loaded;
  add([
    check(
      'ok',
      'config',
      `${file} (${Object.keys(config.connectors).length} connectors, ${Object.keys(config.jobs).length} jobs)`,
    ),
  ]);
  add(loaded.warnings.map((warning) => check('warn', 'config', warning)));
  add(stateChecks(config.state, config.timezone));
  if (options.offline) add([check('warn', 'api', 'skipped (--offline)')]);
  else {
    context.output.progress('checking the API...');
    const apiResults = await apiChecks(config, await buildPluginRegistry(), apiKeySettingName(loaded));
    context.output.done();
    add(apiResults);
  }
  context.output.progress('checking connectors...');
  // A company's connector settings resolve from its own file's folder, as the daemon resolves them.
  const connectorResults = await connectorChecks(config, loaded.file, await buildPluginRegistry());
  context.output.done();
  add(connectorResults);
  if (!options.offline) add(await notificationChecks(loaded, context.env, context.secrets));
  const failed = results.filter((item) => item.status === 'fail').length;
  const warned = results.filter((item) => item.status === 'warn').length;
  context.output.note(`${failed} failed, ${warned} warnings, ${results.length - failed - warned} ok`);
  if (failed > 0) throw new CliError('doctor found problems', 'doctor_failed');
}

export const DOCTOR_COMMAND: CommandSpec = {
  name: 'doctor',
  description:
    'check config, state file, API access (environment, scopes, plan, rate limit, clock) and connectors',
  options: [{ flags: '--offline', description: 'skip the checks that reach the API' }],
  run: runDoctor,
};
