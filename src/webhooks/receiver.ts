import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import { systemClock } from '../shared/clock.js';
import { readRawBody } from './body.js';
import type { WebhookEvent } from './envelope.js';
import { parseEnvelope } from './envelope.js';
import { InboxGroupCommitter } from './group-commit.js';
import type { InboxStore } from './inbox.js';
import { DEFAULT_TOLERANCE_SECONDS, verifySignature } from './signature.js';

export const SIGNATURE_HEADER = 'service-signature';
/** The contract does not give a size limit for event bodies; 1 MiB covers large orders with room to spare. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const JSON_CONTENT = { 'content-type': 'application/json' } as const;
const RECEIVED_BODY = JSON.stringify({ received: true, duplicate: false });
const DUPLICATE_BODY = JSON.stringify({ received: true, duplicate: true });

export type RejectReason =
  | 'method_not_allowed'
  | 'body_too_large'
  | 'aborted'
  | 'missing_header'
  | 'malformed_header'
  | 'invalid_timestamp'
  | 'timestamp_out_of_tolerance'
  | 'no_signature'
  | 'no_active_secret'
  | 'signature_mismatch'
  | 'invalid_utf8'
  | 'invalid_json'
  | 'invalid_envelope'
  | 'store_failed';

/** Counters the operations metrics attach to; every method is optional to call sites. */
export interface WebhookObserver {
  received(eventType: string): void;
  rejected(reason: RejectReason): void;
  duplicate(eventType: string): void;
}

export interface WebhookReceiverOptions {
  inbox: InboxStore;
  /** Active signing secrets (several during rotation); a function is read on every request. */
  secrets: readonly string[] | (() => readonly string[]);
  clock?: Clock;
  maxBodyBytes?: number;
  toleranceSeconds?: number;
  observer?: WebhookObserver;
  logger?: Logger;
  /**
   * Group commits that may wait for durability at once; 1 by default. With one, the events that arrive while a
   * group waits for its sync form the next group, so groups grow with the load and each event costs the event loop
   * less; allowing 8 made groups of two or three events each pay for a commit and a sync of their own, about 12 %
   * fewer events a second at 10 connections (bench/profiles.md, 2026-11-30).
   */
  maxCommitsInFlight?: number;
  /** Called after new events are committed (not for duplicates); the dispatcher's kick. */
  onStored?: (events: readonly WebhookEvent[]) => void;
}

export interface WebhookReceiver {
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** Waits until every accepted event is committed and answered. */
  drain(): Promise<void>;
}

/**
 * The webhook endpoint: size limit, signature check on the raw bytes, envelope check, then a durable (group
 * committed) inbox insert before the 2xx. Any failure answers 400 (413 for size) and stores nothing.
 */
type Rejection = { ok: false; status: number; reason: RejectReason };
type ParsedEvent = Extract<ReturnType<typeof parseEnvelope>, { ok: true }>['event'];

/** The request's event, when the method, body size, signature and envelope are all right. */
async function verifiedEvent(
  req: IncomingMessage,
  options: WebhookReceiverOptions,
  nowMs: () => number,
): Promise<{ ok: true; event: ParsedEvent } | Rejection> {
  if (req.method !== 'POST') return { ok: false, status: 405, reason: 'method_not_allowed' };
  const body = await readRawBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
  if (!body.ok) {
    return body.reason === 'too_large'
      ? { ok: false, status: 413, reason: 'body_too_large' }
      : { ok: false, status: 400, reason: 'aborted' };
  }
  const headerValue = req.headers[SIGNATURE_HEADER];
  const verdict = verifySignature({
    header: Array.isArray(headerValue) ? undefined : headerValue,
    rawBody: body.body,
    secrets: typeof options.secrets === 'function' ? options.secrets() : options.secrets,
    nowMs: nowMs(),
    toleranceSeconds: options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS,
  });
  if (!verdict.ok) return { ok: false, status: 400, reason: verdict.reason };
  const envelope = parseEnvelope(body.body);
  if (!envelope.ok) return { ok: false, status: 400, reason: envelope.reason };
  return { ok: true, event: envelope.event };
}

function rejecter(options: WebhookReceiverOptions) {
  return (res: ServerResponse, status: number, reason: RejectReason): void => {
    options.observer?.rejected(reason);
    options.logger?.debug({ reason, status }, 'webhook rejected');
    if (res.headersSent || res.destroyed) return;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (status === 413) headers['connection'] = 'close';
    res.writeHead(status, headers).end(JSON.stringify({ error: reason }));
  };
}

export function createWebhookReceiver(options: WebhookReceiverOptions): WebhookReceiver {
  const clock = options.clock ?? systemClock;
  const committer = new InboxGroupCommitter(options.inbox, {
    ...(options.onStored === undefined ? {} : { onCommitted: options.onStored }),
    maxInFlight: options.maxCommitsInFlight ?? 1,
  });
  const reject = rejecter(options);

  const process = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const verified = await verifiedEvent(req, options, () => clock.now());
    if (!verified.ok) {
      if (verified.status === 405) res.setHeader('allow', 'POST');
      return reject(res, verified.status, verified.reason);
    }
    const { event } = verified;
    let duplicate: boolean;
    try {
      ({ duplicate } = await committer.submit(event));
    } catch (error) {
      options.logger?.error({ err: error, eventId: event.id }, 'webhook inbox insert failed');
      // A non-2xx makes the sender retry later with the same event id.
      return reject(res, 503, 'store_failed');
    }
    if (duplicate) options.observer?.duplicate(event.type);
    else options.observer?.received(event.type);
    if (res.destroyed) return;
    res.writeHead(200, JSON_CONTENT).end(duplicate ? DUPLICATE_BODY : RECEIVED_BODY);
  };

  return {
    handle(req, res) {
      process(req, res).catch((error: unknown) => {
        options.logger?.error({ err: error }, 'webhook handler failed');
        if (!res.headersSent) res.writeHead(500).end();
      });
    },
    drain: () => committer.drain(),
  };
}
