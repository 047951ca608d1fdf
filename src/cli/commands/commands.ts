/** `supply-sync commands list|show|cancel`: the operator command queue, read and steered beside a running daemon. */
import { requiredArgument, type CommandSpec, type Invocation } from '../command-spec.js';
import { deepScrub } from '../../log/index.js';
import { labelledTime } from '../../ops/time-format.js';
import type { QueuedCommand } from '../../state/index.js';
import { globalOptions, loadCliConfig } from '../context.js';
import { openForQueue, requestedByCli } from '../control.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { withState } from '../state-access.js';

async function showCommand({
  context,
  args,
  options,
  command,
}: Invocation<{ json?: boolean }>): Promise<void> {
  const id = requiredArgument(args, 0);
  const loaded = await loadCliConfig(context, globalOptions(command));
  const found = await withState(
    () => openForQueue(loaded),
    (state) => state.commands.get(commandId(id)),
  );
  if (found === null)
    throw new CliError(`no command #${id} (finished ones are kept 7 days)`, 'command_not_found');
  if (options.json) return context.output.line(JSON.stringify(deepScrub(found, context.secrets), null, 2));
  const shown = deepScrub(found, context.secrets) as QueuedCommand;
  for (const line of details(shown, loaded.config.timezone)) context.output.line(line);
}

async function cancelCommand({ context, args, command }: Invocation): Promise<void> {
  const id = requiredArgument(args, 0);
  const loaded = await loadCliConfig(context, globalOptions(command));
  await withState(
    () => openForQueue(loaded),
    (state) => cancel(state.commands, commandId(id), requestedByCli()),
  );
  context.output.line(`command #${id} cancelled; nothing was done`);
}

async function listCommands({
  context,
  options,
  command,
}: Invocation<{ all?: boolean; limit: string; json?: boolean }>): Promise<void> {
  const limit = Number(options.limit);
  if (!Number.isInteger(limit) || limit <= 0) {
    throw new CliError(
      `--limit: expected a positive whole number, got "${options.limit}"`,
      'usage',
      EXIT_USAGE,
    );
  }
  const loaded = await loadCliConfig(context, globalOptions(command));
  const list = await withState(
    () => openForQueue(loaded),
    (state) => state.commands.list({ unfinishedOnly: options.all !== true, limit }),
  );
  if (options.json) return context.output.line(JSON.stringify(deepScrub(list, context.secrets), null, 2));
  if (list.length === 0) return context.output.line(options.all ? 'no commands' : 'no commands waiting');
  for (const queued of deepScrub(list, context.secrets) as QueuedCommand[])
    context.output.line(summary(queued, loaded.config.timezone));
}

export const COMMAND_QUEUE_COMMANDS: CommandSpec = {
  name: 'commands',
  description: 'the commands given to the daemon: list, show one, cancel one still waiting',
  subcommands: [
    {
      name: 'list',
      description: 'the commands waiting for the daemon or under way, newest first',
      options: [
        {
          flags: '--all',
          description: 'finished commands too (kept 7 days), not only those waiting or under way',
        },
        { flags: '--limit <n>', description: 'at most this many, newest first', default: '100' },
        { flags: '--json', description: 'print JSON' },
      ],
      run: listCommands,
    },
    {
      name: 'show',
      description: 'one command: what was asked, by whom, when, and how it ended',
      arguments: [{ name: '<id>', description: 'the command id (`command #14`)' }],
      options: [{ flags: '--json', description: 'print JSON' }],
      run: showCommand,
    },
    {
      name: 'cancel',
      description: 'cancel a command still waiting for the daemon (one under way cannot be stopped halfway)',
      arguments: [{ name: '<id>', description: 'the command id' }],
      run: cancelCommand,
    },
  ],
};

function cancel(
  commands: { get(id: number): QueuedCommand | null; cancel(id: number, by: string): boolean },
  id: number,
  by: string,
): void {
  if (commands.cancel(id, by)) return;
  const found = commands.get(id);
  if (found === null) throw new CliError(`no command #${id}`, 'command_not_found');
  const why =
    found.status === 'running'
      ? 'a daemon is carrying it out; it cannot be stopped halfway'
      : `it is finished already (${found.status}${found.errorCode === null ? '' : `: ${found.errorCode}`})`;
  throw new CliError(`command #${id} cannot be cancelled: ${why}`, 'command_not_pending');
}

function commandId(text: string): number {
  const id = /^#?(\d+)$/.exec(text.trim())?.[1];
  if (id === undefined)
    throw new CliError(`expected a command id like 14, got "${text}"`, 'usage', EXIT_USAGE);
  return Number(id);
}

function outcome(queued: QueuedCommand): string {
  if (queued.status === 'failed') return `failed: ${queued.errorCode ?? 'command_failed'}`;
  return queued.status;
}

/** One line of `commands list`; times in the config's zone, labelled. */
function summary(queued: QueuedCommand, timeZone: string): string {
  const args = Object.keys(queued.args).length === 0 ? '' : ` ${JSON.stringify(queued.args)}`;
  const asked = `asked ${labelledTime(queued.requestedAt, timeZone)} by ${queued.requestedBy}`;
  return `#${queued.id} ${queued.kind}${args} ${outcome(queued)} (${asked}; attempts ${queued.attempts})`;
}

function details(queued: QueuedCommand, timeZone: string): string[] {
  const at = (ms: number) => labelledTime(ms, timeZone);
  return [
    `command #${queued.id}: ${queued.kind} ${JSON.stringify(queued.args)}`,
    `status: ${outcome(queued)}`,
    `asked: ${at(queued.requestedAt)} by ${queued.requestedBy}`,
    `attempts: ${queued.attempts}`,
    ...(queued.finishedAt === null ? [] : [`finished: ${at(queued.finishedAt)}`]),
    ...(queued.error === null ? [] : [`why: ${queued.error}`]),
    ...(queued.status === 'done' ? [`result: ${JSON.stringify(queued.result)}`] : []),
  ];
}
