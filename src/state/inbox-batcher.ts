import type { InboxEventInput, InboxStore } from './inbox.js';

interface Waiting {
  event: InboxEventInput;
  resolve: (isNew: boolean) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit for the webhook receiver: events added in the same turn of the event loop (concurrent requests)
 * are stored in one transaction, one fsync for all, and each caller's promise resolves only once that commit is
 * durable, so a 2xx is never sent for an event that is not yet on disk.
 */
export class InboxBatcher {
  private queue: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly inbox: InboxStore,
    private readonly maxBatch = 500,
  ) {}

  /** Resolves with true when the event is new, false when its id was already stored. */
  add(event: InboxEventInput): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ event, resolve, reject });
      if (this.queue.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    try {
      const fresh = this.inbox.insertMany(batch.map((w) => w.event));
      batch.forEach((w, i) => w.resolve(fresh[i] ?? false));
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  }
}
