import type { WebhookEvent } from './envelope.js';
import type { InboxStore } from './inbox.js';

export interface CommitOutcome {
  duplicate: boolean;
}

interface Pending {
  event: WebhookEvent;
  resolve: (outcome: CommitOutcome) => void;
  reject: (error: unknown) => void;
}

export interface GroupCommitOptions {
  /** Called after new events are committed (duplicates excluded). */
  onCommitted?: (newEvents: readonly WebhookEvent[]) => void;
  maxBatch?: number;
  /**
   * Commits allowed in flight at once. 1 for a store that commits synchronously; more for a store whose
   * durability wait is asynchronous (WalSyncedInbox), so the next group can start while one waits for its fsync.
   */
  maxInFlight?: number;
}

/**
 * Group commit for the inbox: events that arrive in the same tick (and while commits are in flight) are
 * inserted in one transaction, then every waiting request is answered. One fsync serves many events.
 */
export class InboxGroupCommitter {
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly maxBatch: number;
  private readonly maxInFlight: number;

  constructor(
    private readonly inbox: InboxStore,
    private readonly options: GroupCommitOptions = {},
  ) {
    this.maxBatch = options.maxBatch ?? 1000;
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 1);
  }

  /** Resolves once the event is durably stored (or known as a duplicate); rejects when the insert failed. */
  submit(event: WebhookEvent): Promise<CommitOutcome> {
    return new Promise<CommitOutcome>((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      this.schedule();
    });
  }

  /** Resolves when everything submitted so far has been committed or failed. */
  drain(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0 && !this.scheduled;
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    // setImmediate runs after the I/O callbacks of this loop turn: every request already read joins the group.
    setImmediate(() => {
      this.scheduled = false;
      const batch = this.queue.splice(0, this.maxBatch);
      if (batch.length === 0) return this.settleIdle();
      this.inFlight += 1;
      void this.commit(batch).finally(() => {
        this.inFlight -= 1;
        this.schedule();
        this.settleIdle();
      });
      this.schedule();
    });
  }

  private settleIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private async commit(batch: Pending[]): Promise<void> {
    // The same event id twice in one batch: the first is inserted, the others are duplicates.
    const firstById = new Map<string, WebhookEvent>();
    for (const { event } of batch) if (!firstById.has(event.id)) firstById.set(event.id, event);
    let newIds: ReadonlySet<string>;
    try {
      newIds = await this.inbox.insertMany([...firstById.values()]);
    } catch (error) {
      for (const pending of batch) pending.reject(error);
      return;
    }
    const answered = new Set<string>();
    const newEvents: WebhookEvent[] = [];
    for (const pending of batch) {
      const isNew = newIds.has(pending.event.id) && !answered.has(pending.event.id);
      answered.add(pending.event.id);
      if (isNew) newEvents.push(pending.event);
      pending.resolve({ duplicate: !isNew });
    }
    if (newEvents.length > 0) this.options.onCommitted?.(newEvents);
  }
}
