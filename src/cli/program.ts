/**
 * The `supply-sync` command tree: each command group is a spec table in its own module under commands/, registered
 * with commander by `registerCommands` (command-spec.ts).
 */
import { Command, CommanderError } from 'commander';
import { CATALOG_COMMANDS } from './commands/catalog.js';
import { COMMAND_QUEUE_COMMANDS } from './commands/commands.js';
import { CONFIG_COMMANDS } from './commands/config.js';
import { CONTRACT_COMMANDS } from './commands/contract.js';
import { CURSOR_COMMANDS } from './commands/cursor.js';
import { DEAD_LETTER_COMMANDS } from './commands/dead-letters.js';
import { DEMO_COMMAND } from './commands/demo.js';
import { DOCTOR_COMMAND } from './commands/doctor.js';
import { COMPANY_COMMANDS } from './commands/companies.js';
import { JOB_COMMANDS } from './commands/jobs.js';
import { JOURNAL_COMMANDS } from './commands/journal.js';
import { NOTIFY_COMMANDS } from './commands/notify.js';
import { RECONCILE_COMMANDS } from './commands/reconcile.js';
import { RUN_COMMAND } from './commands/run.js';
import { RUNS_COMMAND } from './commands/runs.js';
import { SANDBOX_COMMAND } from './commands/sandbox.js';
import { STATE_COMMANDS } from './commands/state.js';
import { STATUS_COMMAND } from './commands/status.js';
import { SYNC_COMMAND } from './commands/sync.js';
import { WEBHOOK_COMMANDS } from './commands/webhooks.js';
import { registerCommands, type CommandSpec } from './command-spec.js';
import { DEFAULT_CONFIG, type CliContext } from './context.js';
import { EXIT_OK, EXIT_USAGE, reportError } from './errors.js';
import { createOutput } from './output.js';
import { packageVersion } from '../daemon/package/version.js';

/** Every command of the CLI, in the order `--help` lists them. */
export const CLI_COMMANDS: readonly CommandSpec[] = [
  RUN_COMMAND,
  SYNC_COMMAND,
  STATUS_COMMAND,
  CONFIG_COMMANDS,
  CURSOR_COMMANDS,
  STATE_COMMANDS,
  CATALOG_COMMANDS,
  DEAD_LETTER_COMMANDS,
  JOURNAL_COMMANDS,
  RECONCILE_COMMANDS,
  JOB_COMMANDS,
  COMPANY_COMMANDS,
  RUNS_COMMAND,
  COMMAND_QUEUE_COMMANDS,
  WEBHOOK_COMMANDS,
  SANDBOX_COMMAND,
  DEMO_COMMAND,
  DOCTOR_COMMAND,
  CONTRACT_COMMANDS,
  NOTIFY_COMMANDS,
];

export function buildProgram(context: CliContext): Command {
  const program = new Command('supply-sync')
    .description('Connects ERP and accounting systems to the Purchasing and Supply API')
    .option(
      '-c, --config <file>',
      `config file (env SUPPLY_SYNC_CONFIG; default ${DEFAULT_CONFIG})`,
      context.env['SUPPLY_SYNC_CONFIG'],
    )
    .option(
      '--company <name>',
      'with an office config (a companies: block): the company to act on (env SUPPLY_SYNC_COMPANY); `status --all` and `runs --all` show every company',
      context.env['SUPPLY_SYNC_COMPANY'],
    )
    .version(packageVersion(), '-V, --version', 'print the version of supply-sync')
    .option('--debug', 'print stack traces of unexpected errors')
    .addHelpText(
      'after',
      '\nExit codes: 0 done; 1 failed (the error names why); 2 bad usage or config; 3 queued for the daemon and ' +
        'not finished (the CLI stopped waiting: a signal, or no daemon holds the state; see `commands show <id>`).',
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride();
  registerCommands(program, CLI_COMMANDS, context);
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  return program;
}

/** Runs the CLI and resolves with the exit code. */
export async function runCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  const context: CliContext = { output: createOutput(), secrets: [], env };
  const program = buildProgram(context);
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT_OK;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version requests end here too; commander has printed them.
      return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    }
    const debug = argv.includes('--debug');
    return reportError(error, {
      debug,
      secrets: context.secrets,
      write: (text) => process.stderr.write(text),
    });
  }
}
