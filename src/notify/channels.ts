/** The configured channels, ready to send: a nodemailer transport or an HTTPS dispatcher each. */
import { createNetworkDispatcher, type NetworkOptions } from '../client/network.js';
import type { NotificationsConfig } from '../config/index.js';
import { readChannelCa } from './ca-file.js';
import { emailTransport, sendEmail, verifyEmail, type EmailChannelConfig } from './email-channel.js';
import { stableMessageId, type MessageOrigin, type NotificationMessage } from './message.js';
import { idempotencyKey, postWebhook, webhookBody, WebhookRefusedError } from './webhook-channel.js';

export interface Channel {
  readonly name: string;
  readonly type: 'email' | 'webhook';
  /** Sends; resolves with what the server answered. */
  send(message: NotificationMessage, dedupKey: string): Promise<string>;
  /** Checks the server is reachable and accepts the credentials, sending nothing. */
  verify?(): Promise<void>;
  close(): void;
}

export interface ChannelContext {
  readonly origin: MessageOrigin;
  /** The config file's folder, for relative ca_file paths. */
  readonly baseDir: string;
  /** api.proxy and api.ca_file: webhooks go out the way API calls do. */
  readonly network: Pick<NetworkOptions, 'proxy' | 'extraCaCertificates' | 'env'>;
}

/** An error a retry will not fix (a 4xx answer, a refused recipient or login). */
export function isPermanent(error: unknown): boolean {
  if (error instanceof WebhookRefusedError) return error.permanent;
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

function emailChannel(name: string, config: EmailChannelConfig, context: ChannelContext): Channel {
  const transport = emailTransport(config, context.baseDir, name);
  return {
    name,
    type: 'email',
    send: async (message, dedupKey) =>
      sendEmail(
        await transport.get(),
        config,
        message,
        message.messageId ?? stableMessageId(dedupKey, name, context.origin.instance),
      ),
    verify: async () => verifyEmail(await transport.get()),
    // Only a transport that was made has connections to close.
    close: () =>
      void transport.started()?.then(
        (made) => made.close(),
        () => undefined,
      ),
  };
}

export function buildChannels(config: NotificationsConfig, context: ChannelContext): Map<string, Channel> {
  const channels = new Map<string, Channel>();
  for (const [name, channel] of Object.entries(config.channels)) {
    if (channel.type === 'email') {
      channels.set(name, emailChannel(name, channel, context));
      continue;
    }
    const own = channel.ca_file === undefined ? [] : [readChannelCa(context.baseDir, channel.ca_file, name)];
    const dispatcher = createNetworkDispatcher({
      ...context.network,
      extraCaCertificates: [...(context.network.extraCaCertificates ?? []), ...own],
    });
    channels.set(name, {
      name,
      type: 'webhook',
      send: async (message, dedupKey) =>
        postWebhook(
          await dispatcher.get(),
          channel.url,
          webhookBody(channel.preset, message, context.origin, dedupKey),
          idempotencyKey(dedupKey),
        ),
      close: () => void dispatcher.close().catch(() => undefined),
    });
  }
  return channels;
}

/** The parts of webhook URLs that carry tokens, to scrub wherever an error might quote them. */
export function channelSecrets(config: NotificationsConfig | undefined): string[] {
  const secrets: string[] = [];
  for (const channel of Object.values(config?.channels ?? {})) {
    if (channel.type !== 'webhook') continue;
    const url = new URL(channel.url);
    secrets.push(channel.url, `${url.pathname}${url.search}`);
    if (url.search.length > 1) secrets.push(url.search);
    if (url.pathname.length > 1) secrets.push(url.pathname);
  }
  return secrets;
}
