/** The email channel: nodemailer over SMTP with STARTTLS or TLS, optional login. */
import type { Transporter } from 'nodemailer';
import type { NotificationChannelConfig } from '../config/index.js';
import { lazy, loadNodemailer, type Lazy } from '../shared/lazy-packages.js';
import { readChannelCa } from './ca-file.js';
import type { NotificationMessage } from './message.js';

export type EmailChannelConfig = Extract<NotificationChannelConfig, { type: 'email' }>;

const DEFAULT_PORT = { starttls: 587, tls: 465, none: 25 } as const;
const TIMEOUT_MS = 30_000;

export function emailPort(config: EmailChannelConfig): number {
  return config.port ?? DEFAULT_PORT[config.security];
}

/**
 * A transport per channel, made at its first use; `baseDir` resolves ca_file relative to the config file (read
 * now, so a missing file shows when the channels are built).
 */
export function emailTransport(config: EmailChannelConfig, baseDir: string, name: string): Lazy<Transporter> {
  const ca = config.ca_file === undefined ? undefined : readChannelCa(baseDir, config.ca_file, name);
  return lazy(async () => (await loadNodemailer()).createTransport(transportOptions(config, ca)));
}

function transportOptions(config: EmailChannelConfig, ca: string | undefined) {
  return {
    host: config.host,
    port: emailPort(config),
    secure: config.security === 'tls',
    // starttls: refuse to go on in plain text when the server offers no STARTTLS (a downgrade would leak the login).
    requireTLS: config.security === 'starttls',
    ignoreTLS: config.security === 'none',
    ...(config.username === undefined
      ? {}
      : { auth: { user: config.username, pass: config.password ?? '' } }),
    tls: ca === undefined ? {} : { ca },
    connectionTimeout: TIMEOUT_MS,
    greetingTimeout: TIMEOUT_MS,
    socketTimeout: TIMEOUT_MS,
  };
}

/** Sends one message; resolves with the server's final answer ("250 2.0.0 Ok: queued as ..."). */
export async function sendEmail(
  transport: Transporter,
  config: EmailChannelConfig,
  message: NotificationMessage,
  messageId: string,
): Promise<string> {
  const info = (await transport.sendMail({
    from: config.from,
    to: [...config.to],
    subject: message.subject,
    text: message.text,
    html: message.html,
    messageId,
    headers: { 'X-Supply-Sync-Event': message.event },
  })) as { response?: string; rejected?: unknown[] };
  if (Array.isArray(info.rejected) && info.rejected.length > 0) {
    throw new Error(`the server refused ${info.rejected.length} recipient(s): ${info.response ?? ''}`);
  }
  return info.response ?? 'accepted';
}

/** Connects, upgrades to TLS and logs in (when configured) without sending anything. */
export async function verifyEmail(transport: Transporter): Promise<void> {
  await transport.verify();
}
