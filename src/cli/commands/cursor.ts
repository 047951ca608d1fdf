/** `supply-sync cursor list|reset`: where each incremental stream stands. */
import { requiredArgument, type CommandSpec, type Invocation } from '../command-spec.js';
import { globalOptions, loadCliConfig } from '../context.js';
import { giveStateCommand } from '../control.js';
import { openStateForReading, withState } from '../state-access.js';

function iso(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString();
}

async function listCursors({ context, options, command }: Invocation<{ json?: boolean }>): Promise<void> {
  const { config } = await loadCliConfig(context, globalOptions(command));
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
}

async function resetCursor({ context, args, command }: Invocation): Promise<void> {
  const stream = requiredArgument(args, 0);
  const loaded = await loadCliConfig(context, globalOptions(command));
  await giveStateCommand(context, loaded, { kind: 'cursor.reset', stream }, 'cursor reset');
  context.output.line(`cursor ${stream} reset`);
}

export const CURSOR_COMMANDS: CommandSpec = {
  name: 'cursor',
  description: 'list or reset the sync cursors of incremental streams',
  subcommands: [
    {
      name: 'list',
      description: 'each stream with its watermark and any unfinished pass',
      options: [{ flags: '--json', description: 'print JSON' }],
      run: listCursors,
    },
    {
      name: 'reset',
      description:
        "forget a stream's cursor: its next run re-reads everything (the ledger still prevents double writes); a running daemon carries it out",
      arguments: [{ name: '<stream>', description: 'stream name as `cursor list` shows it' }],
      run: resetCursor,
    },
  ],
};
