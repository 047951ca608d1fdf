import { requestSent } from '../shared/request-sent.js';
import { FailureTracker, decideOutcome, errorMessage, type StopReason } from './outcome.js';
import { deliverHead } from './pull-head.js';
import { classifyPage, commitPage } from './pull-page.js';
import { replayDeadLetters } from './pull-replay.js';
import type { Page, PageRequest, PullCounts, PullOptions, PullResult, RecordFailure } from './pull-types.js';

export type * from './pull-types.js';

/** The updated_since of a new pass: the watermark minus the look-back overlap, floored to milliseconds. */
export function passStart(watermarkMs: number | null, overlapMs: number): string | null {
  return watermarkMs === null ? null : new Date(watermarkMs - overlapMs).toISOString();
}

class MalformedPageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MalformedPageError';
  }
}

function sameRequest(a: PageRequest, b: PageRequest): boolean {
  return a.cursor === b.cursor && a.updatedSince === b.updatedSince;
}

function checkPage<T>(page: Page<T>): void {
  if (!Array.isArray(page.items)) throw new MalformedPageError('page has no items array');
  if (page.hasMore && !page.nextCursor)
    throw new MalformedPageError('page says has_more but gives no next_cursor');
}

/**
 * Incremental pull over an `updated_since` list endpoint that never skips and never re-delivers a version:
 * - each pass starts at (watermark - overlap), so rows committed late with equal or earlier timestamps are seen;
 * - versions already delivered, keyed (id, updated_at), are dropped; the seen-set is pruned behind the overlap;
 * - each page's records, dead letters, seen-set and the API's next cursor commit in one transaction, so a run cut
 *   short (crash, budget, rate limit, shutdown) resumes the same pass where it stopped;
 * - the watermark moves only when a pass ends, to the newest timestamp of the pass, which makes it safe whatever
 *   order the source returns items in; an error on a page never moves anything;
 * - with `headFirst`, the records changed after the watermark are delivered before the pass (see deliverHead).
 */
export function pullIncremental<T>(options: PullOptions<T>): Promise<PullResult> {
  return new IncrementalPull(options).run();
}

type Cursor = ReturnType<PullOptions<unknown>['state']['cursors']['get']>;

/** One run of `pullIncremental`: what it has counted and why it stopped. */
class IncrementalPull<T> {
  private readonly counts: PullCounts = {
    pages: 0,
    fetched: 0,
    delivered: 0,
    duplicates: 0,
    deadLettered: 0,
    replayed: 0,
  };
  private readonly tracker: FailureTracker;
  private progress = false;
  private stopped: StopReason | null = null;
  private failure: unknown;
  private passComplete = false;
  private breach: string | null = null;
  private prefetched: { request: PageRequest; page: Promise<Page<T>> } | null = null;

  constructor(private readonly options: PullOptions<T>) {
    this.tracker = new FailureTracker(options.errorThreshold);
  }

  async run(): Promise<PullResult> {
    const { budget } = this.options;
    try {
      await this.catchUp();
      const resolveDeadLetters =
        this.options.state.deadLetters.countOpen(this.options.flow ?? this.options.stream) > 0;
      while (!this.passComplete) {
        this.stopped = budget.stopReason();
        if (this.stopped) break;
        const cursor = this.options.state.cursors.get(this.options.stream);
        const request = this.requestAt(cursor);
        const page = await this.fetch(request, cursor);
        if (page === undefined) continue;
        await this.prefetchAfter(page, request);
        await this.deliverAndCommit(request, page, cursor, resolveDeadLetters);
        this.breach = this.tracker.exceeded();
        if (this.breach) break;
      }
    } catch (error) {
      this.failure = error;
      if (budget.signal.aborted) this.stopped = 'aborted';
    }
    return this.result();
  }

  /** Dead letters replayed first, then (with headFirst) the records changed after the watermark. */
  private async catchUp(): Promise<void> {
    const { options } = this;
    const replay = await replayDeadLetters(options, options.budget.signal);
    this.counts.replayed = replay.resolved;
    this.progress = replay.resolved > 0;
    if (options.headFirst === true && options.budget.stopReason() === null) {
      const head = await deliverHead(options, options.budget.signal);
      this.counts.fetched += head.fetched;
      this.counts.delivered += head.delivered;
      this.tracker.succeeded(head.delivered);
      this.progress ||= head.delivered > 0;
    }
  }

  private requestAt(cursor: Cursor): PageRequest {
    return cursor?.passCursor
      ? { cursor: cursor.passCursor, updatedSince: cursor.passSince }
      : { cursor: null, updatedSince: passStart(cursor?.watermarkMs ?? null, this.options.overlapMs) };
  }

  /** The page asked for (the prefetched one when it is that page); undefined when the pass restarts. */
  private async fetch(request: PageRequest, cursor: Cursor): Promise<Page<T> | undefined> {
    const { options } = this;
    try {
      const ahead =
        this.prefetched && sameRequest(this.prefetched.request, request) ? this.prefetched.page : null;
      this.prefetched = null;
      const page = await (ahead ?? options.fetchPage(request, options.budget.signal));
      checkPage(page);
      return page;
    } catch (error) {
      if (request.cursor !== null && options.isStaleCursorError?.(error)) {
        // The API no longer accepts the stored cursor: restart the pass; the seen-set absorbs the repeats.
        options.state.cursors.save({
          ...(cursor ?? { stream: options.stream, watermarkMs: null }),
          passCursor: null,
          passSince: null,
          passMaxMs: null,
        });
        return undefined;
      }
      throw error;
    }
  }

  /** Fetches the next page while this one is delivered and committed; used only if the checkpoint agrees. */
  private async prefetchAfter(page: Page<T>, request: PageRequest): Promise<void> {
    if (!(page.hasMore && page.nextCursor && this.options.prefetch !== false)) return;
    const next: PageRequest = { cursor: page.nextCursor, updatedSince: request.updatedSince };
    const ahead = this.options.fetchPage(next, this.options.budget.signal);
    ahead.catch(() => undefined); // awaited on the next turn, or dropped if the run stops first
    this.prefetched = { request: next, page: ahead };
    await requestSent();
  }

  private async deliverAndCommit(
    request: PageRequest,
    page: Page<T>,
    cursor: Cursor,
    resolveDeadLetters: boolean,
  ): Promise<void> {
    const { options, counts, tracker } = this;
    const classified = classifyPage(options, page);
    let deliveryFailures: readonly RecordFailure<T>[] = [];
    if (options.deliver && classified.fresh.length > 0) {
      deliveryFailures =
        (await options.deliver(
          classified.fresh.map((f) => f.item),
          options.budget.signal,
        )) ?? [];
    }
    const committed = commitPage(options, {
      request,
      page,
      classified,
      deliveryFailures,
      cursor,
      resolveDeadLetters,
    });
    this.progress = true;
    this.passComplete = committed.passComplete;
    counts.pages += 1;
    counts.fetched += page.items.length;
    counts.duplicates += classified.duplicates;
    counts.delivered += committed.delivered;
    counts.deadLettered += committed.deadLettered;
    tracker.succeeded(committed.delivered);
    tracker.failure(committed.deadLettered);
    options.onPage?.({ ...counts });
  }

  private result(): PullResult {
    const { failure, stopped, breach } = this;
    const aborted = failure !== undefined && stopped === 'aborted';
    const outcome = decideOutcome({
      progress: this.progress,
      stopped,
      error: aborted ? undefined : failure,
      thresholdBreach: breach,
    });
    const error = breach ?? (failure !== undefined && !aborted ? errorMessage(failure) : undefined);
    return {
      outcome,
      counts: { ...this.counts },
      passComplete: this.passComplete,
      stopped,
      tally: this.tracker.tally('records'),
      ...(error === undefined ? {} : { error }),
    };
  }
}
