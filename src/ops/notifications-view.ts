/** The status page's Notifications section: each channel's queue, last success and last error. */

export interface NotificationChannelStatus {
  readonly channel: string;
  /** Waiting to be sent, retries included. */
  readonly pending: number;
  readonly sent: number;
  /** Given up after their tries. */
  readonly failed: number;
  readonly lastSentAt: number | null;
  /** The newest error of a message not sent (already free of secrets). */
  readonly lastError: string | null;
}

const escape = (value: unknown): string =>
  value === null || value === undefined || value === ''
    ? '&ndash;'
    : String(value).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Nothing when notifications are not configured; a table with a failing row per channel in trouble otherwise. */
export function renderNotificationsSection(
  channels: readonly NotificationChannelStatus[] | null,
  time: (iso: string | null) => string | null,
): string {
  if (channels === null) return '';
  if (channels.length === 0) return '<h2>Notifications</h2><p class="muted">Nothing sent yet.</p>';
  const rows = channels.map((c) => {
    const failing = c.failed > 0 || c.lastError !== null;
    const sentAt = c.lastSentAt === null ? null : time(new Date(c.lastSentAt).toISOString());
    return `<tr${failing ? ' class="failing"' : ''}><td>${escape(c.channel)}</td><td>${escape(c.pending)}</td><td>${escape(c.sent)}</td><td>${escape(c.failed)}</td><td>${escape(sentAt)}</td><td>${escape(c.lastError)}</td></tr>`;
  });
  return `<h2>Notifications</h2><table><thead><tr><th>Channel</th><th>Waiting</th><th>Sent</th><th>Given up</th><th>Last sent</th><th>Last error</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}
