/**
 * Notifications as a side job of the leader: every few seconds it derives what happened from the state into the
 * queue and starts sending what is due, one worker per channel. It shares nothing with the job runs but the state:
 * a slow or broken mail server delays only its own channel's messages, never a sync run or another channel, and a
 * failing pass is logged and tried again on the next tick.
 */
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { apiNetworkOptions } from '../../api-access/index.js';
import type { LeadershipStatus, OpsMetrics } from '../../ops/index.js';
import {
  buildChannels,
  channelSecrets,
  messageOrigin,
  NotificationSender,
  Notifier,
  type Channel,
  type Transition,
} from '../../notify/index.js';
import { scrubSecrets } from '../../log/index.js';
import type { NotificationsConfig } from '../../config/index.js';
import { leadershipSettings } from '../start/leadership-settings.js';
import type { Environment } from './environment.js';
import { every, stopLoop, type Loop } from './every.js';
import type { Service, StopOptions } from './service.js';

/** Sent and given-up messages are kept this long for the status page. */
const KEEP_FINISHED_MS = 30 * 86_400_000;
const PRUNE_EVERY_MS = 60 * 60_000;
const STOP_BOUND_MS = 2_000;

export interface NotificationServiceOptions {
  readonly env: Environment;
  readonly metrics: OpsMetrics;
}

export class NotificationService implements Service {
  readonly name = 'notifications';
  #loop: Loop | undefined;
  #channels = new Map<string, Channel>();
  #sender: NotificationSender | undefined;
  #conditions: (() => Promise<readonly Transition[]>) | undefined;
  #leadership: (() => LeadershipStatus) | undefined;

  constructor(private readonly options: NotificationServiceOptions) {}

  /** The watched conditions (readiness, refused keys) and, on a shared state, the election; read on every pass. */
  watch(conditions: () => Promise<readonly Transition[]>, leadership?: () => LeadershipStatus): void {
    this.#conditions = conditions;
    this.#leadership = leadership;
  }

  async start(): Promise<void> {
    const { env } = this.options;
    const config = env.loaded.config.notifications;
    if (config === undefined || this.#loop !== undefined) return;
    const { notifier, sender } = this.#build(config);
    this.#first(notifier);
    let prunedAt = 0;
    const pass = async (signal?: AbortSignal) => {
      const now = env.clock.now();
      notifier.derive(now, (await this.#conditions?.()) ?? []);
      sender.kick(signal);
      if (now - prunedAt < PRUNE_EVERY_MS) return;
      env.state.notifications.prune(now - KEEP_FINISHED_MS);
      prunedAt = now;
    };
    this.#loop = every(
      env.clock,
      config.poll_interval,
      pass,
      (error) => env.logger.warn({ err: error }, 'notification pass failed; trying again on the next one'),
      env.loopClock,
    );
  }

  async stop(options: StopOptions): Promise<void> {
    const { env } = this.options;
    const loop = this.#loop;
    this.#loop = undefined;
    // Stopped first in the jobs group: a mail server that hangs must not eat the running jobs' time to reach a
    // checkpoint. A send cut off here is marked `sending` and goes again at the next start (the documented window).
    const bounded = { timeoutMs: Math.min(options.timeoutMs, STOP_BOUND_MS) };
    await stopLoop(loop, bounded, env.logger, 'notifications');
    const deadline = new AbortController();
    const sending = this.#sender?.idle().then(() => true);
    const late = env.clock.sleep(bounded.timeoutMs, deadline.signal).then(
      () => false,
      () => true,
    );
    if (!(await Promise.race([sending ?? true, late])))
      env.logger.warn(
        { task: 'notifications' },
        'a notification was still being sent at the stop; it goes again at the next start',
      );
    deadline.abort();
    for (const channel of this.#channels.values()) channel.close();
    this.#channels.clear();
    this.#sender = undefined;
  }

  #build(config: NotificationsConfig): { notifier: Notifier; sender: NotificationSender } {
    const { env } = this.options;
    const secrets = [...env.secrets(), ...channelSecrets(config)];
    const scrub = (text: string) => scrubSecrets(text, secrets);
    // Named as it elects (host:pid unless ha.instance is set), so a pair sharing notifications.instance differs.
    const origin = messageOrigin(env.loaded, leadershipSettings(env.loaded.config)?.instance ?? hostname());
    this.#channels = buildChannels(config, {
      origin,
      baseDir: dirname(env.loaded.file),
      network: apiNetworkOptions(env.loaded.config),
    });
    const notifier = new Notifier({
      state: env.state,
      config,
      origin,
      timezone: env.loaded.config.timezone,
      jobs: new Map([...env.jobs].map(([name, built]) => [name, built.config])),
      watchingSince: env.clock.now(),
      scrub,
    });
    this.#sender = new NotificationSender({
      state: env.state,
      clock: env.clock,
      logger: env.logger,
      channels: this.#channels,
      maxAttempts: config.max_attempts,
      perMinute: config.per_minute,
      scrub,
      onOutcome: (channel, outcome) => this.options.metrics.notifications.inc({ channel, outcome }),
    });
    return { notifier, sender: this.#sender };
  }

  /** At the start of a term, before any job runs: the leadership event, and where history stands now. */
  #first(notifier: Notifier): void {
    const { env } = this.options;
    const term = this.#leadership?.().leader;
    try {
      if (term !== undefined && term !== null) notifier.leads(term.instance, term.epoch, env.clock.now());
      // A first start notes where history stands, so the runs that follow (and only they) are news.
      notifier.derive(env.clock.now());
    } catch (error) {
      env.logger.warn(
        { err: error },
        'notifications could not be derived at the start; the next pass tries again',
      );
    }
  }
}
