/** `supply-sync demo` (what `npm start` runs): embedded sandbox + daemon with config/demo.yaml + activity. */
import { Option, type Command } from 'commander';
import type { CliContext } from '../context.js';

export function registerDemoCommand(program: Command, context: CliContext): void {
  program
    .command('demo')
    .description('sandbox + daemon with config/demo.yaml + simulated activity on both sides')
    .option('--port <port>', 'operations server port (overrides the demo config)', (value) => Number(value))
    .addOption(
      new Option(
        '--host <address>',
        'interface to listen on, e.g. 0.0.0.0 to be reached from other machines (overrides the demo config)',
      ).env('SUPPLY_SYNC_DEMO_HOST'),
    )
    .option('--duration <seconds>', 'stop by itself after this many seconds', (value) => Number(value))
    .action(async (options: { port?: number; host?: string; duration?: number }, command: Command) => {
      const { runDemo } = await import('../../daemon/index.js');
      const config = command.optsWithGlobals<{ config?: string }>().config;
      await runDemo({
        ...(config === undefined ? {} : { configPath: config }),
        ...(options.port === undefined ? {} : { port: options.port }),
        ...(options.host === undefined ? {} : { host: options.host }),
        ...(options.duration === undefined ? {} : { durationMs: options.duration * 1000 }),
        print: (line) => context.output.line(line),
      });
    });
}
