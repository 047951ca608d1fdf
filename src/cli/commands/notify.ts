/**
 * `supply-sync notify test [--channel NAME]`: sends a test message now and prints what each server answered.
 * `supply-sync notify report [--now]`: sends the daily report now (see notify-report.ts).
 */
import { dirname } from 'node:path';
import type { CommandSpec, Invocation } from '../command-spec.js';
import { apiNetworkOptions } from '../../api-access/index.js';
import { buildChannels, channelSecrets, messageOrigin, simpleMessage } from '../../notify/index.js';
import { CliError, scrub } from '../errors.js';
import { sendReport } from './notify-report.js';
import { globalOptions, loadCliConfig } from '../context.js';

async function testChannels({ context, options, command }: Invocation<{ channel?: string }>): Promise<void> {
  const loaded = await loadCliConfig(context, globalOptions(command));
  const config = loaded.config.notifications;
  const names = Object.keys(config?.channels ?? {});
  if (config === undefined || names.length === 0)
    throw new CliError('no channels configured: add them under notifications.channels', 'no_channels');
  if (options.channel !== undefined && !names.includes(options.channel))
    throw new CliError(
      `no channel named "${options.channel}" (defined: ${names.join(', ')})`,
      'channel_not_found',
    );
  context.secrets.push(...channelSecrets(config));
  const origin = messageOrigin(loaded);
  const channels = buildChannels(config, {
    origin,
    baseDir: dirname(loaded.file),
    network: { ...apiNetworkOptions(loaded.config), env: context.env },
  });
  const message = simpleMessage(
    'test',
    'info',
    'Test message',
    ['This is a test of the notification channel. If you read this, supply-sync can reach you here.'],
    origin,
  );
  let failed = 0;
  try {
    for (const channel of channels.values()) {
      if (options.channel !== undefined && channel.name !== options.channel) continue;
      try {
        const answer = await channel.send(message, `test:${Date.now()}:${channel.name}`);
        context.output.line(`OK   ${channel.name} (${channel.type}): ${scrub(answer, context.secrets)}`);
      } catch (error) {
        failed += 1;
        const reason = error instanceof Error ? error.message : String(error);
        context.output.line(`FAIL ${channel.name} (${channel.type}): ${scrub(reason, context.secrets)}`);
      }
    }
  } finally {
    for (const channel of channels.values()) channel.close();
  }
  if (failed > 0) throw new CliError(`${failed} channel(s) could not send`, 'notify_failed');
}

async function sendReportNow({ context, options, command }: Invocation<{ now?: boolean }>): Promise<void> {
  const loaded = await loadCliConfig(context, globalOptions(command));
  await sendReport(context, loaded, options.now === true);
}

export const NOTIFY_COMMANDS: CommandSpec = {
  name: 'notify',
  description: 'email and chat notifications',
  subcommands: [
    {
      name: 'test',
      description: 'send a test message through each channel (or one) and print what its server answered',
      options: [
        { flags: '--channel <name>', description: 'only this channel (a key under notifications.channels)' },
      ],
      run: testChannels,
    },
    {
      name: 'report',
      description:
        'send the daily report now to its channels (through the running daemon if one holds the state) and print it; the 24 hours up to the last daily_report.at, or up to now with --now',
      options: [{ flags: '--now', description: 'report the 24 hours up to now' }],
      run: sendReportNow,
    },
  ],
};
