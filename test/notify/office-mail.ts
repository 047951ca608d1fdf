/** An office's notifications for the office mail tests: one email channel to the real SMTP test server. */
import type { TestCa } from '../network/helpers/pki.js';
import { SMTP_USER, type SmtpReceiver } from './receivers.js';

/** The office file's `notifications:` block: channel `channel` mailing `to`, read every 200 ms; then `extra`. */
export function officeMailBlock(
  smtp: SmtpReceiver,
  ca: TestCa,
  channel: string,
  to: string,
  extra: readonly string[] = [],
): string[] {
  return [
    'notifications:',
    '  instance: books-office',
    '  poll_interval: 200ms',
    '  channels:',
    `    ${channel}:`,
    '      type: email',
    '      host: 127.0.0.1',
    `      port: ${smtp.port}`,
    `      username: ${SMTP_USER}`,
    '      password: ${SMTP_PASSWORD}',
    `      ca_file: ${ca.certFile}`,
    '      from: supply-sync@example.com',
    `      to: [${to}]`,
    ...extra,
  ];
}

/** A company file: its key, its own books folder, and its own recipients on the office's channel. */
export function mailedCompanyFile(key: string, name: string, channel: string): string {
  return (
    `api:\n  api_key: ${key}\nconnectors:\n  books:\n    import_dir: books/${name}\n` +
    `notifications:\n  channels:\n    ${channel}:\n      to: [${name}-books@example.com]\n`
  );
}
