/** A notification as queued: subject, plain text and simple HTML, fixed once so every retry sends the same thing. */
import { createHash } from 'node:crypto';

export type Severity = 'error' | 'warning' | 'ok' | 'info';

export interface NotificationMessage {
  /** The rule event, `daily_report` or `test`. */
  readonly event: string;
  readonly severity: Severity;
  readonly subject: string;
  readonly text: string;
  readonly html: string;
  /** The SMTP Message-ID, fixed when queued (see stableMessageId); absent on a test message. */
  readonly messageId?: string;
}

/** Which installation sent a message: every message names it, so two sites sharing a channel can tell them apart. */
export interface MessageOrigin {
  /** The installation's name: notifications.instance, which both instances of a pair may share. */
  readonly instance: string;
  /**
   * This process's own name: its ha.instance (host:pid by default) where instances elect a leader, else the host
   * name. Named in a message when it differs from `instance`, so a pair sharing one label can be told apart.
   */
  readonly node?: string;
  /** The config file the daemon runs. */
  readonly config: string;
  /** The setting that holds the API key, as a fix names it (see apiKeySettingName); both forms when unknown. */
  readonly apiKeySetting?: string;
}

/** An instant as people read it in the configured time zone, e.g. "3 Mar 2026, 07:00". */
export function localTime(instant: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(
    instant,
  );
}

/** localTime with the zone named, for a message that states one instant. */
export function zonedTime(instant: number, timeZone: string): string {
  return `${localTime(instant, timeZone)} (${timeZone})`;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Paragraphs of plain text as the HTML body, so the two parts always say the same. */
export function paragraphsHtml(paragraphs: readonly string[]): string {
  return paragraphs.map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`).join('\n');
}

export function originLine(origin: MessageOrigin): string {
  const node =
    origin.node === undefined || origin.node === origin.instance ? '' : `instance ${origin.node}, `;
  return `Sent by supply-sync on ${origin.instance} (${node}config ${origin.config}).`;
}

/** A message built from paragraphs, with the origin as its last line. */
export function simpleMessage(
  event: string,
  severity: Severity,
  subject: string,
  paragraphs: readonly string[],
  origin: MessageOrigin,
): NotificationMessage {
  const all = [...paragraphs, originLine(origin)];
  return {
    event,
    severity,
    subject: `[supply-sync ${origin.instance}] ${subject}`,
    text: `${all.join('\n\n')}\n`,
    html: `<!doctype html><html><body>\n${paragraphsHtml(all)}\n</body></html>\n`,
  };
}

/**
 * The SMTP Message-ID of a queued message: derived from its dedup key and channel, so a message sent again after a
 * crash or by the next leader carries the same id and the mail client (or a person) sees it is the same message.
 * `installation` keeps two installations' ids apart (the same job name and run number would otherwise collide).
 */
export function stableMessageId(dedupKey: string, channel: string, installation: string): string {
  const hash = createHash('sha256').update(`${dedupKey}\u0000${channel}`).digest('hex').slice(0, 32);
  const host = installation.toLowerCase().replace(/[^a-z0-9.-]/g, '-') || 'supply-sync';
  return `<${hash}.${channel.replace(/[^a-z0-9_-]/gi, '-')}@${host}.supply-sync>`;
}

export function parseMessage(json: string): NotificationMessage {
  return JSON.parse(json) as NotificationMessage;
}
