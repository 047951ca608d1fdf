/**
 * `supply-sync notify report [--now]`: the daily report on demand, to the daily report's channels. Without a daemon
 * it is queued and sent from here; while a daemon holds the state it is queued for the daemon's sender, and the
 * command waits until each channel's server has answered. Either way it prints the report and each answer.
 */
import { dirname } from 'node:path';
import { pino } from 'pino';
import type { LoadedConfig } from '../../config/index.js';
import {
  buildChannels,
  channelSecrets,
  messageOrigin,
  NotificationSender,
  Notifier,
  reportDue,
} from '../../notify/index.js';
import { apiNetworkOptions } from '../../api-access/index.js';
import { systemClock } from '../../shared/clock.js';
import type { QueuedNotification, StateStore } from '../../state/index.js';
import { openConfiguredState, openStateStore } from '../../state/index.js';
import { CliError, scrub } from '../errors.js';
import type { CliContext } from '../context.js';
import { withStateChange } from '../state-access.js';

const DAY_MS = 86_400_000;
const WAIT_POLL_MS = 100;
/** How long the command waits for a daemon to send it before saying it stays queued. */
const DAEMON_WAIT_MS = 120_000;

/** The end of the 24 hours reported: now, or the last time the daily report was due. */
export function reportEnd(loaded: LoadedConfig, now: number, onDemand: boolean): number {
  const at = loaded.config.notifications?.daily_report?.at ?? '00:00';
  if (onDemand) return now;
  const today = reportDue(now, at, loaded.config.timezone).due;
  return today <= now ? today : reportDue(now - DAY_MS, at, loaded.config.timezone).due;
}

export async function sendReport(
  context: CliContext,
  loaded: LoadedConfig,
  onDemand: boolean,
): Promise<void> {
  const config = loaded.config.notifications;
  if (config?.daily_report === undefined)
    throw new CliError(
      'no daily report configured: add notifications.daily_report (at, channels) to the config',
      'no_daily_report',
    );
  context.secrets.push(...channelSecrets(config));
  const due = reportEnd(loaded, Date.now(), onDemand);
  const key = `daily_report:on_demand:${due}`;
  let rows: QueuedNotification[];
  try {
    rows = await withStateChange(loaded.config, 'notify report', (state) =>
      sendHere(context, loaded, state, due, key),
    );
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== 'state_locked' && code !== 'leader_elsewhere') throw error;
    rows = await sendByDaemon(context, loaded, due, key);
  }
  printed(context, rows);
}

function notifierFor(context: CliContext, loaded: LoadedConfig, state: StateStore): Notifier {
  const config = loaded.config.notifications!;
  return new Notifier({
    state,
    config,
    origin: messageOrigin(loaded),
    timezone: loaded.config.timezone,
    jobs: new Map(Object.entries(loaded.config.jobs)),
    watchingSince: Date.now(),
    scrub: (text) => scrub(text, context.secrets),
  });
}

async function sendHere(
  context: CliContext,
  loaded: LoadedConfig,
  state: StateStore,
  due: number,
  key: string,
): Promise<QueuedNotification[]> {
  const config = loaded.config.notifications!;
  notifierFor(context, loaded, state).queueReport(due, key);
  const channels = buildChannels(config, {
    origin: messageOrigin(loaded),
    baseDir: dirname(loaded.file),
    network: { ...apiNetworkOptions(loaded.config), env: context.env },
  });
  const sender = new NotificationSender({
    state,
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    channels,
    maxAttempts: config.max_attempts,
    perMinute: config.per_minute,
    scrub: (text) => scrub(text, context.secrets),
  });
  try {
    for (const item of ours(state, key)) if (item.status !== 'sent') await sender.deliver(item);
  } finally {
    for (const channel of channels.values()) channel.close();
  }
  return ours(state, key);
}

async function sendByDaemon(
  context: CliContext,
  loaded: LoadedConfig,
  due: number,
  key: string,
): Promise<QueuedNotification[]> {
  const location = loaded.config.state;
  const state =
    location.url !== undefined
      ? openConfiguredState(location, systemClock)
      : openStateStore({ file: location.path, clock: systemClock, lock: false });
  try {
    notifierFor(context, loaded, state).queueReport(due, key);
    context.output.progress(
      'a daemon holds the state: the report is queued for it, waiting for it to send...',
    );
    const until = Date.now() + DAEMON_WAIT_MS;
    while (ours(state, key).some((item) => item.status === 'pending' || item.status === 'sending')) {
      if (Date.now() > until) break;
      await new Promise((resolve) => setTimeout(resolve, WAIT_POLL_MS));
    }
    context.output.done();
    return ours(state, key);
  } finally {
    state.close();
  }
}

function ours(state: StateStore, key: string): QueuedNotification[] {
  return state.notifications.list(undefined, 1000).filter((item) => item.dedupKey === key);
}

function printed(context: CliContext, rows: readonly QueuedNotification[]): void {
  const first = rows[0];
  if (first !== undefined) {
    const message = JSON.parse(first.message) as { subject: string; text: string };
    context.output.line(scrub(`${message.subject}\n\n${message.text}`, context.secrets));
  }
  let failed = 0;
  for (const row of rows) {
    const sent = row.status === 'sent';
    if (!sent) failed += 1;
    const how = sent ? 'OK  ' : row.status === 'failed' ? 'FAIL' : 'WAIT';
    const said =
      row.status === 'sent' ? (row.answer ?? 'sent') : (row.lastError ?? 'still queued for the daemon');
    context.output.line(`${how} ${row.channel}: ${scrub(said, context.secrets)}`);
  }
  if (failed > 0) throw new CliError(`${failed} channel(s) did not take the report`, 'notify_failed');
}
