/**
 * The webhook channel: one HTTPS POST of a JSON body, through the daemon's network settings (api.proxy or
 * HTTPS_PROXY/NO_PROXY, api.ca_file plus the channel's own ca_file). Presets shape the body for the receiver.
 */
import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import type { NotificationChannelConfig } from '../config/index.js';
import { loadUndici } from '../shared/lazy-packages.js';
import type { MessageOrigin, NotificationMessage } from './message.js';

export type WebhookChannelConfig = Extract<NotificationChannelConfig, { type: 'webhook' }>;

const COLOR: Record<NotificationMessage['severity'], string> = {
  error: 'attention',
  warning: 'warning',
  ok: 'good',
  info: 'default',
};

/** Microsoft Teams: an Adaptive Card in a message, the format Teams workflows and channel webhooks both accept. */
function teamsBody(message: NotificationMessage): unknown {
  return {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body: [
            {
              type: 'TextBlock',
              text: message.subject,
              weight: 'Bolder',
              wrap: true,
              color: COLOR[message.severity],
            },
            { type: 'TextBlock', text: message.text, wrap: true },
          ],
        },
      },
    ],
  };
}

/** Slack incoming webhooks read `text` as mrkdwn, where only &, < and > need escaping. */
function slackBody(message: NotificationMessage): unknown {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return { text: `*${escape(message.subject)}*\n${escape(message.text)}` };
}

export function webhookBody(
  preset: WebhookChannelConfig['preset'],
  message: NotificationMessage,
  origin: MessageOrigin,
  dedupKey: string,
): unknown {
  if (preset === 'teams') return teamsBody(message);
  if (preset === 'slack') return slackBody(message);
  return {
    event: message.event,
    severity: message.severity,
    subject: message.subject,
    text: message.text,
    instance: origin.instance,
    ...(origin.node === undefined ? {} : { instance_id: origin.node }),
    config: origin.config,
    id: idempotencyKey(dedupKey),
  };
}

/** The same for every try of one message, so a receiver that keeps ids can drop a repeat. */
export function idempotencyKey(dedupKey: string): string {
  return createHash('sha256').update(dedupKey).digest('hex').slice(0, 32);
}

export class WebhookRefusedError extends Error {
  constructor(
    readonly status: number,
    answer: string,
  ) {
    super(`the receiver answered HTTP ${status}${answer === '' ? '' : `: ${answer}`}`);
    this.name = 'WebhookRefusedError';
  }

  /** 4xx other than 408/429 will not change by trying again. */
  get permanent(): boolean {
    return this.status >= 400 && this.status < 500 && this.status !== 408 && this.status !== 429;
  }
}

/** Posts the body; resolves with "HTTP 200: <start of the answer>", rejects with what the receiver answered. */
export async function postWebhook(
  dispatcher: Dispatcher,
  url: string,
  body: unknown,
  key: string,
  timeoutMs = 30_000,
): Promise<string> {
  const { request } = await loadUndici();
  const response = await request(url, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', 'idempotency-key': key, 'user-agent': 'supply-sync' },
    body: JSON.stringify(body),
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const answer = (await response.body.text()).slice(0, 200).replace(/\s+/g, ' ').trim();
  if (response.statusCode >= 300) throw new WebhookRefusedError(response.statusCode, answer);
  return `HTTP ${response.statusCode}${answer === '' ? '' : `: ${answer}`}`;
}
