/** `supply-sync cursor list|reset`: where each incremental stream stands. */
import type { Command } from 'commander';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { giveStateCommand } from '../control.js';
import { openStateForReading, withState } from '../state-access.js';

function iso(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString();
}

export function registerCursorCommands(program: Command, context: CliContext): void {
  const cursor = program
    .command('cursor')
    .description('list or reset the sync cursors of incremental streams');

  cursor
    .command('list')
    .description('each stream with its watermark and any unfinished pass')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }, command: Command) => {
      const { config } = await loadCliConfig(context, globalOptions(command).config);
      const cursors = await withState(
        () => openStateForReading(config.state),
        (state) => state.cursors.list(),
      );
      if (options.json) return context.output.line(JSON.stringify(cursors, null, 2));
      if (cursors.length === 0) return context.output.line('no cursors yet');
      for (const c of cursors) {
        const pass = c.passCursor === null ? '' : ' (a pass is in progress and will resume)';
        context.output.line(
          `${c.stream.padEnd(28)} up to ${iso(c.watermarkMs)}; saved ${iso(c.updatedAt)}${pass}`,
        );
      }
    });

  cursor
    .command('reset')
    .argument('<stream>', 'stream name as `cursor list` shows it')
    .description(
      "forget a stream's cursor: its next run re-reads everything (the ledger still prevents double writes); a running daemon carries it out",
    )
    .action(async (stream: string, _options: unknown, command: Command) => {
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      await giveStateCommand(context, loaded, { kind: 'cursor.reset', stream }, 'cursor reset');
      context.output.line(`cursor ${stream} reset`);
    });
}
