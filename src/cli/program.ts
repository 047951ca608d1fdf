/** The `supply-sync` command tree; each command lives in its own module under commands/. */
import { Command, CommanderError } from 'commander';
import { registerCatalogCommands } from './commands/catalog.js';
import { registerCommandQueueCommands } from './commands/commands.js';
import { registerConfigCommands } from './commands/config.js';
import { registerContractCommands } from './commands/contract.js';
import { registerCursorCommands } from './commands/cursor.js';
import { registerDeadLetterCommands } from './commands/dead-letters.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerDoctorCommand } from './commands/doctor.js';
import { registerJobCommands } from './commands/jobs.js';
import { registerJournalCommands } from './commands/journal.js';
import { registerNotifyCommands } from './commands/notify.js';
import { registerReconcileCommands } from './commands/reconcile.js';
import { registerRunCommand } from './commands/run.js';
import { registerRunsCommand } from './commands/runs.js';
import { registerSandboxCommand } from './commands/sandbox.js';
import { registerStateCommands } from './commands/state.js';
import { registerStatusCommand } from './commands/status.js';
import { registerSyncCommand } from './commands/sync.js';
import { registerWebhookCommands } from './commands/webhooks.js';
import { DEFAULT_CONFIG, type CliContext } from './context.js';
import { EXIT_OK, EXIT_USAGE, reportError } from './errors.js';
import { createOutput } from './output.js';
import { packageVersion } from '../daemon/version.js';

export function buildProgram(context: CliContext): Command {
  const program = new Command('supply-sync')
    .description('Connects ERP and accounting systems to the Purchasing and Supply API')
    .option(
      '-c, --config <file>',
      `config file (env SUPPLY_SYNC_CONFIG; default ${DEFAULT_CONFIG})`,
      context.env['SUPPLY_SYNC_CONFIG'],
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
  registerRunCommand(program, context);
  registerSyncCommand(program, context);
  registerStatusCommand(program, context);
  registerConfigCommands(program, context);
  registerCursorCommands(program, context);
  registerStateCommands(program, context);
  registerCatalogCommands(program, context);
  registerDeadLetterCommands(program, context);
  registerJournalCommands(program, context);
  registerReconcileCommands(program, context);
  registerJobCommands(program, context);
  registerRunsCommand(program, context);
  registerCommandQueueCommands(program, context);
  registerWebhookCommands(program, context);
  registerSandboxCommand(program, context);
  registerDemoCommand(program, context);
  registerDoctorCommand(program, context);
  registerContractCommands(program, context);
  registerNotifyCommands(program, context);
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
