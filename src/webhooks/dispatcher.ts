import type { Logger } from 'pino';
import type { InboxRow, InboxStore } from './inbox.js';

/** Event type -> names of the jobs it nudges. Types not listed are stored and ignored. */
export type EventJobMapping = Readonly<Record<string, readonly string[]>>;

export interface JobTriggerCause {
  eventIds: readonly string[];
  eventTypes: readonly string[];
}

export interface WebhookDispatcherOptions {
  inbox: InboxStore;
  mapping: EventJobMapping;
  /** Asks the scheduler for a run now; it coalesces with a run in flight (single-flight per job). */
  trigger: (jobName: string, cause: JobTriggerCause) => void | Promise<void>;
  logger?: Logger;
  batchSize?: number;
  /**
   * Least time from the start of one pass to the start of the next that a kick asks for
   * (DEFAULT_DISPATCH_INTERVAL_MS when absent; 0 starts a pass on every kick).
   */
  minIntervalMs?: number;
}

/**
 * Every stored group of events kicks the dispatcher, and a pass triggers each job its events name. Under a stream
 * of events that made the triggered job run back to back, each run's bookkeeping commits blocking the event loop
 * that also answers the webhooks; a run started at most every 200 ms picks up the same changes (polling stays the
 * source of truth) while a lone event, after a quiet spell, is still dispatched at once.
 */
export const DEFAULT_DISPATCH_INTERVAL_MS = 200;

export interface DispatchSummary {
  events: number;
  ignored: number;
  triggers: number;
}

/**
 * Turns inbox events into job triggers and marks them dispatched. A webhook only nudges a run; polling stays
 * the source of truth, so a trigger repeated after a crash (before the mark) is harmless.
 */
export class WebhookDispatcher {
  private running: Promise<DispatchSummary> | undefined;
  private again = false;
  /** A pass put off until the interval since the last one has passed. */
  private scheduled: Promise<void> | undefined;
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  private readonly minIntervalMs: number;

  constructor(private readonly options: WebhookDispatcherOptions) {
    this.minIntervalMs = Math.max(0, options.minIntervalMs ?? DEFAULT_DISPATCH_INTERVAL_MS);
  }

  /**
   * Starts a dispatch pass soon: at once when the last pass started at least the interval ago, else when it has.
   * Passes never overlap, and a kick during a pass runs one more.
   */
  kick(): void {
    if (this.running !== undefined) {
      this.again = true;
      return;
    }
    if (this.scheduled !== undefined) return;
    const waitMs = this.lastStartedAt + this.minIntervalMs - performance.now();
    if (waitMs > 0) {
      this.scheduled = new Promise((resolve) => {
        setTimeout(() => {
          this.scheduled = undefined;
          this.startPass();
          resolve();
        }, waitMs);
      });
      return;
    }
    this.startPass();
  }

  private startPass(): void {
    this.lastStartedAt = performance.now();
    this.running = this.dispatchPending()
      .catch((error: unknown) => {
        this.options.logger?.error({ err: error }, 'webhook dispatch failed');
        return { events: 0, ignored: 0, triggers: 0 };
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Waits for the pass in flight, if any, and for those kicks have asked for since. */
  async idle(): Promise<void> {
    for (;;) {
      const next = this.running ?? this.scheduled;
      if (next === undefined) return;
      await next;
    }
  }

  /** Dispatches every undispatched inbox event (also those left by a crash); returns what it did. */
  async dispatchPending(): Promise<DispatchSummary> {
    const summary: DispatchSummary = { events: 0, ignored: 0, triggers: 0 };
    const batchSize = this.options.batchSize ?? 500;
    for (;;) {
      const rows = await this.options.inbox.listUndispatched(batchSize);
      if (rows.length === 0) return summary;
      const pass = await this.dispatchRows(rows);
      summary.events += rows.length;
      summary.ignored += pass.ignored;
      summary.triggers += pass.triggers;
      await this.options.inbox.markDispatched(rows);
    }
  }

  private async dispatchRows(rows: readonly InboxRow[]): Promise<{ ignored: number; triggers: number }> {
    const byJob = new Map<string, InboxRow[]>();
    let ignored = 0;
    for (const row of rows) {
      const jobs = Object.hasOwn(this.options.mapping, row.type)
        ? (this.options.mapping[row.type] ?? [])
        : [];
      if (jobs.length === 0) ignored += 1;
      for (const job of jobs) {
        const jobRows = byJob.get(job);
        if (jobRows === undefined) byJob.set(job, [row]);
        else jobRows.push(row);
      }
    }
    for (const [job, jobRows] of byJob) {
      const cause: JobTriggerCause = {
        eventIds: jobRows.map((row) => row.id),
        eventTypes: [...new Set(jobRows.map((row) => row.type))],
      };
      try {
        await this.options.trigger(job, cause);
      } catch (error) {
        this.options.logger?.warn(
          { err: error, job },
          'webhook trigger failed; polling will pick the change up',
        );
      }
    }
    return { ignored, triggers: byJob.size };
  }
}
