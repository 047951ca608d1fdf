/** `supply-sync sandbox`: the local emulator of the API, for trying things out and for tests. */
import type { Command } from 'commander';
import type { CliContext } from '../context.js';

interface SandboxFlags {
  port?: string;
  state?: string;
  keysOut?: string;
  timeScale?: string;
  allowHttpWebhooks?: boolean;
}

export function registerSandboxCommand(program: Command, context: CliContext): void {
  program
    .command('sandbox')
    .description('start the local sandbox API (prints its base URL and demo keys; Ctrl-C stops it)')
    .option('--port <n>', 'port on 127.0.0.1 (default: a free one)')
    .option('--state <file>', 'keep the sandbox data in this SQLite file (default: in memory)')
    .option('--keys-out <file>', 'also write the base URL and keys as JSON to this file')
    .option('--time-scale <x>', 'run webhook retry schedules this many times faster')
    .option('--allow-http-webhooks', 'accept http://127.0.0.1 webhook URLs (local use)')
    .action(async (flags: SandboxFlags) => {
      const { runSandboxCli } = await import('../../sandbox/index.js');
      await runSandboxCli({
        ...flags,
        write: (text) => process.stdout.write(text),
        handleSignals: true,
      });
      context.output.note('sandbox running; press Ctrl-C to stop');
    });
}
