/** `supply-sync sandbox`: the local emulator of the API, for trying things out and for tests. */
import type { CommandSpec, Invocation } from '../command-spec.js';

interface SandboxFlags {
  port?: string;
  state?: string;
  keysOut?: string;
  timeScale?: string;
  allowHttpWebhooks?: boolean;
}

async function runSandbox({ context, options }: Invocation<SandboxFlags>): Promise<void> {
  const { runSandboxCli } = await import('../../sandbox/index.js');
  await runSandboxCli({
    ...options,
    write: (text) => process.stdout.write(text),
    handleSignals: true,
  });
  context.output.note('sandbox running; press Ctrl-C to stop');
}

export const SANDBOX_COMMAND: CommandSpec = {
  name: 'sandbox',
  description: 'start the local sandbox API (prints its base URL and demo keys; Ctrl-C stops it)',
  options: [
    { flags: '--port <n>', description: 'port on 127.0.0.1 (default: a free one)' },
    {
      flags: '--state <file>',
      description: 'keep the sandbox data in this SQLite file (default: in memory)',
    },
    { flags: '--keys-out <file>', description: 'also write the base URL and keys as JSON to this file' },
    { flags: '--time-scale <x>', description: 'run webhook retry schedules this many times faster' },
    { flags: '--allow-http-webhooks', description: 'accept http://127.0.0.1 webhook URLs (local use)' },
  ],
  run: runSandbox,
};
