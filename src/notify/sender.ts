/**
 * Delivery of the queue: oldest first, at most `perMinute` messages per channel, a failed try retried with growing
 * waits, given up after `maxAttempts` or at once when the server's answer cannot change. Each try is marked
 * `sending` before the message is handed over and `sent` right after the server's answer: a kill between the two is
 * the only way a message can go out twice, and then with the same Message-ID / idempotency key.
 */
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.js';
import type { QueuedNotification, StateStore } from '../state/index.js';
import { isPermanent, type Channel } from './channels.js';
import { parseMessage } from './message.js';

export type DeliveryOutcome = 'sent' | 'retry' | 'failed';

export interface SenderOptions {
  readonly state: StateStore;
  readonly clock: Clock;
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  readonly channels: ReadonlyMap<string, Channel>;
  readonly maxAttempts: number;
  readonly perMinute: number;
  readonly scrub: (text: string) => string;
  readonly onOutcome?: (channel: string, outcome: DeliveryOutcome) => void;
}

const FIRST_RETRY_MS = 30_000;
const LONGEST_RETRY_MS = 60 * 60_000;
const MINUTE_MS = 60_000;

export function retryDelay(attempts: number): number {
  return Math.min(LONGEST_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1));
}

export class NotificationSender {
  readonly #sentAt = new Map<string, number[]>();
  readonly #busy = new Map<string, Promise<number>>();

  constructor(private readonly options: SenderOptions) {}

  /**
   * Starts sending what is due, one worker per channel, and returns at once: a channel whose server hangs holds up
   * only its own messages. A channel whose worker is still busy is left to it.
   */
  kick(signal?: AbortSignal, limit = 200): void {
    void this.#start(signal, limit);
  }

  /** Sends what is due and waits for it; returns how many messages were tried (tests and `notify`). */
  async deliverDue(signal?: AbortSignal, limit = 200): Promise<number> {
    const counts = await Promise.all(this.#start(signal, limit));
    return counts.reduce((sum, n) => sum + n, 0);
  }

  /** Resolves when no worker is sending. */
  async idle(): Promise<void> {
    await Promise.all(this.#busy.values());
  }

  #start(signal: AbortSignal | undefined, limit: number): Promise<number>[] {
    const byChannel = new Map<string, QueuedNotification[]>();
    for (const item of this.options.state.notifications.due(limit)) {
      if (this.#busy.has(item.channel)) continue; // its `sending` row is in flight here, not cut off by a crash
      byChannel.set(item.channel, [...(byChannel.get(item.channel) ?? []), item]);
    }
    return [...byChannel].map(([channel, items]) => {
      const work = this.#work(channel, items, signal).finally(() => this.#busy.delete(channel));
      this.#busy.set(channel, work);
      return work;
    });
  }

  async #work(channel: string, items: readonly QueuedNotification[], signal?: AbortSignal): Promise<number> {
    let tried = 0;
    for (const item of items) {
      if (signal?.aborted || !this.#allowed(channel)) break;
      try {
        await this.deliver(item);
      } catch (error) {
        // Only the state can fail here (a fenced or lost database); the next pass tries again.
        this.options.logger.warn({ channel, err: error }, 'notification delivery stopped');
        break;
      }
      tried += 1;
    }
    return tried;
  }

  async deliver(item: QueuedNotification): Promise<DeliveryOutcome> {
    const { state, logger } = this.options;
    const channel = this.options.channels.get(item.channel);
    if (channel === undefined) {
      state.notifications.markFailed(item.id, `no channel named ${item.channel} in the config any more`);
      return this.#outcome(item, 'failed');
    }
    if (item.status === 'sending') {
      logger.warn(
        { channel: item.channel, event: item.event, id: item.id },
        'notification was being sent when the daemon stopped; sending it again (the receiver may see it twice, with the same id)',
      );
    }
    state.notifications.markSending(item.id);
    try {
      const answer = this.options.scrub(await channel.send(parseMessage(item.message), item.dedupKey));
      state.notifications.markSent(item.id, answer);
      this.#sentAt.get(item.channel)?.push(this.options.clock.now());
      logger.info({ channel: item.channel, event: item.event, answer }, 'notification sent');
      return this.#outcome(item, 'sent');
    } catch (error) {
      return this.#failed(item, error);
    }
  }

  #failed(item: QueuedNotification, error: unknown): DeliveryOutcome {
    const { state, logger, clock } = this.options;
    const reason = this.options.scrub(error instanceof Error ? error.message : String(error));
    const attempts = item.attempts + 1;
    if (attempts >= this.options.maxAttempts || isPermanent(error)) {
      state.notifications.markFailed(item.id, reason);
      logger.error({ channel: item.channel, event: item.event, attempts, reason }, 'notification given up');
      return this.#outcome(item, 'failed');
    }
    const wait = retryDelay(attempts);
    state.notifications.markRetry(item.id, reason, clock.now() + wait);
    logger.warn(
      { channel: item.channel, event: item.event, attempts, retryInMs: wait, reason },
      'notification not sent; will retry',
    );
    return this.#outcome(item, 'retry');
  }

  #outcome(item: QueuedNotification, outcome: DeliveryOutcome): DeliveryOutcome {
    this.options.onOutcome?.(item.channel, outcome);
    return outcome;
  }

  /** The channel's rate limit: at most perMinute sends in the last minute. */
  #allowed(channel: string): boolean {
    const now = this.options.clock.now();
    const recent = (this.#sentAt.get(channel) ?? []).filter((at) => now - at < MINUTE_MS);
    this.#sentAt.set(channel, recent);
    return recent.length < this.options.perMinute;
  }
}
