/** One pass of the notification work: derive what happened into the queue, queue the daily report when due. */
import type { JobConfig, NotificationsConfig } from '../config/index.js';
import type { StateStore } from '../state/index.js';
import { dailyReport, reportDue } from './daily-report.js';
import { deriveDeadLetters } from './dead-letter-events.js';
import { deriveRunEvents, deriveStaleJobs } from './job-events.js';
import { tellEpisode } from './episodes.js';
import type { MessageOrigin } from './message.js';
import { enqueue, type Routing } from './routing.js';
import { noteLeadership, noteTransition, type Transition } from './transitions.js';

export interface NotifierOptions {
  readonly state: StateStore;
  readonly config: NotificationsConfig;
  readonly origin: MessageOrigin;
  readonly timezone: string;
  readonly jobs: ReadonlyMap<string, JobConfig>;
  /**
   * When this instance started watching: a job that never succeeded is stale from the first such time recorded in the
   * state for it (kept across restarts and failovers until the job succeeds).
   */
  readonly watchingSince: number;
  readonly scrub: (text: string) => string;
}

export class Notifier {
  readonly #routing: Routing;

  constructor(private readonly options: NotifierOptions) {
    this.#routing = {
      state: options.state,
      config: options.config,
      scrub: options.scrub,
      timezone: options.timezone,
    };
  }

  /** Queues every event derived from the state and the given conditions; returns how many messages were queued. */
  derive(now: number, conditions: readonly Transition[] = []): number {
    const { origin, jobs } = this.options;
    // Conditions first: a key refused or a lost readiness is in the episode's first message with the failures it causes.
    let queued = 0;
    for (const change of conditions) queued += noteTransition(this.#routing, origin, change, now);
    queued += deriveRunEvents(this.#routing, origin, jobs.keys());
    queued += deriveDeadLetters(this.#routing, origin, jobs.keys(), now);
    queued += deriveStaleJobs(this.#routing, origin, jobs.entries(), now, this.options.watchingSince);
    queued += tellEpisode(this.#routing, origin);
    return queued + this.dailyReport(now);
  }

  /** `holder` (its ha.instance, the lease holder) won a leadership term (term number `epoch`). */
  leads(holder: string, epoch: number, now: number): number {
    return noteLeadership(this.#routing, this.options.origin, holder, epoch, now);
  }

  /** Queues today's report once the configured time has passed (once per local day, whoever leads then). */
  dailyReport(now: number): number {
    const report = this.options.config.daily_report;
    if (report === undefined) return 0;
    const { due, day } = reportDue(now, report.at, this.options.timezone);
    if (now < due || this.options.state.notifications.has(`daily_report:${day}`)) return 0;
    return this.queueReport(due, `daily_report:${day}`);
  }

  /**
   * Queues the report of the 24 hours up to `due` under `key` to the daily report's channels (`notify report`
   * queues one on demand under a key of its own); returns how many channels it was queued for.
   */
  queueReport(due: number, key: string): number {
    const { config, state, timezone, origin } = this.options;
    const report = config.daily_report;
    if (report === undefined) return 0;
    const jobs = [...this.options.jobs]
      .filter(([name]) => report.jobs === undefined || report.jobs.includes(name))
      .map(([name, jobConfig]) => ({ name, config: jobConfig }));
    const message = dailyReport(state, jobs, due, timezone, origin);
    return state.transaction(() => enqueue(this.#routing, report.channels, key, message));
  }
}
