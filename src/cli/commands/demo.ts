/** `supply-sync demo` (what `npm start` runs): embedded sandbox + daemon with config/demo.yaml + activity. */
import type { CommandSpec, Invocation } from '../command-spec.js';

async function runDemoCommand({
  context,
  options,
  command,
}: Invocation<{ port?: number; host?: string; duration?: number }>): Promise<void> {
  const { runDemo } = await import('../../daemon/index.js');
  const config = command.optsWithGlobals<{ config?: string }>().config;
  await runDemo({
    ...(config === undefined ? {} : { configPath: config }),
    ...(options.port === undefined ? {} : { port: options.port }),
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.duration === undefined ? {} : { durationMs: options.duration * 1000 }),
    print: (line) => context.output.line(line),
  });
}

export const DEMO_COMMAND: CommandSpec = {
  name: 'demo',
  description: 'sandbox + daemon with config/demo.yaml + simulated activity on both sides',
  options: [
    {
      flags: '--port <port>',
      description: 'operations server port (overrides the demo config)',
      parse: Number,
    },
    {
      flags: '--host <address>',
      description:
        'interface to listen on, e.g. 0.0.0.0 to be reached from other machines (overrides the demo config)',
      env: 'SUPPLY_SYNC_DEMO_HOST',
    },
    { flags: '--duration <seconds>', description: 'stop by itself after this many seconds', parse: Number },
  ],
  run: runDemoCommand,
};
