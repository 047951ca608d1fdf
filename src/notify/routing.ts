/** Which channels an event goes to, and queuing it there once. */
import type { NotificationEvent, NotificationRule, NotificationsConfig } from '../config/index.js';
import type { StateStore } from '../state/index.js';
import type { NotificationMessage } from './message.js';

export interface Routing {
  readonly state: StateStore;
  readonly config: NotificationsConfig;
  /** Removes every known secret from text that goes into a message. */
  readonly scrub: (text: string) => string;
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
  const json = JSON.stringify(scrubbed);
  let queued = 0;
  for (const channel of new Set(channels)) {
    if (routing.state.notifications.enqueue({ dedupKey, channel, event: message.event, message: json }))
      queued += 1;
  }
  return queued;
}

export function channelsOf(rules: readonly NotificationRule[]): string[] {
  return [...new Set(rules.flatMap((rule) => rule.channels))];
}
