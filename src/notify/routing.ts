/** Which channels an event goes to, and queuing it there once. */
import type { NotificationEvent, NotificationRule, NotificationsConfig } from '../config/index.js';
import type { StateStore } from '../state/index.js';
import { randomUUID } from 'node:crypto';
import { stableMessageId, type NotificationMessage } from './message.js';

export interface Routing {
  readonly state: StateStore;
  readonly config: NotificationsConfig;
  /** Removes every known secret from text that goes into a message. */
  readonly scrub: (text: string) => string;
  /** The top-level timezone: every time in a message is given in it. */
  readonly timezone: string;
  /** The Message-IDs' domain when several states send one message (the office report's claim); else the state's. */
  readonly installation?: string | undefined;
}

/** The rules that send `event` for `job` (job events only name a job), optionally narrowed further. */
export function rulesFor(
  config: NotificationsConfig,
  event: NotificationEvent,
  job?: string,
  accept: (rule: NotificationRule) => boolean = () => true,
): NotificationRule[] {
  return config.rules.filter(
    (rule) =>
      rule.events.includes(event) &&
      (job === undefined || rule.jobs === undefined || rule.jobs.includes(job)) &&
      accept(rule),
  );
}

/** Queues `message` for each channel once under `dedupKey`; returns how many were new. Call inside a transaction. */
export function enqueue(
  routing: Routing,
  channels: Iterable<string>,
  dedupKey: string,
  message: NotificationMessage,
): number {
  const scrubbed: NotificationMessage = {
    ...message,
    subject: routing.scrub(message.subject),
    text: routing.scrub(message.text),
    html: routing.scrub(message.html),
  };
  const installation = routing.installation ?? installationId(routing);
  let queued = 0;
  for (const channel of new Set(channels)) {
    const json = JSON.stringify({ ...scrubbed, messageId: stableMessageId(dedupKey, channel, installation) });
    if (routing.state.notifications.enqueue({ dedupKey, channel, event: message.event, message: json }))
      queued += 1;
  }
  return queued;
}

/** A random name for this state (so for every instance sharing it), made once: the domain of Message-IDs. */
function installationId(routing: Routing): string {
  const stored = routing.state.kv.get('notifications', 'installation');
  if (typeof stored === 'string') return stored;
  const made = randomUUID();
  routing.state.kv.set('notifications', 'installation', made);
  return made;
}

export function channelsOf(rules: readonly NotificationRule[]): string[] {
  return [...new Set(rules.flatMap((rule) => rule.channels))];
}

/** The status page's address as a message's line, when notifications.console_url names it. */
export function statusPageLines(routing: Routing): string[] {
  const url = routing.config.console_url;
  return url === undefined ? [] : [`Status page: ${url}`];
}
