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
export async function pullIncremental<T>(options: PullOptions<T>): Promise<PullResult> {
  const { state, stream, budget } = options;
  const flow = options.flow ?? stream;
  const counts: PullCounts = {
    pages: 0,
    fetched: 0,
    delivered: 0,
    duplicates: 0,
    deadLettered: 0,
    replayed: 0,
  };
  const tracker = new FailureTracker(options.errorThreshold);
  let progress = false;
  let stopped: StopReason | null = null;
  let failure: unknown;
  let passComplete = false;
  let breach: string | null = null;
  let prefetched: { request: PageRequest; page: Promise<Page<T>> } | null = null;

  try {
    const replay = await replayDeadLetters(options, budget.signal);
    counts.replayed = replay.resolved;
    progress = replay.resolved > 0;
    if (options.headFirst === true && budget.stopReason() === null) {
      const head = await deliverHead(options, budget.signal);
      counts.fetched += head.fetched;
      counts.delivered += head.delivered;
      tracker.succeeded(head.delivered);
      progress ||= head.delivered > 0;
    }
    const resolveDeadLetters = state.deadLetters.countOpen(flow) > 0;

    while (!passComplete) {
      stopped = budget.stopReason();
      if (stopped) break;
      const cursor = state.cursors.get(stream);
      const request: PageRequest = cursor?.passCursor
        ? { cursor: cursor.passCursor, updatedSince: cursor.passSince }
        : { cursor: null, updatedSince: passStart(cursor?.watermarkMs ?? null, options.overlapMs) };
      let page: Page<T>;
      try {
        const ahead = prefetched && sameRequest(prefetched.request, request) ? prefetched.page : null;
        prefetched = null;
        page = await (ahead ?? options.fetchPage(request, budget.signal));
        checkPage(page);
      } catch (error) {
        if (request.cursor !== null && options.isStaleCursorError?.(error)) {
          // The API no longer accepts the stored cursor: restart the pass; the seen-set absorbs the repeats.
          state.cursors.save({
            ...(cursor ?? { stream, watermarkMs: null }),
            passCursor: null,
            passSince: null,
            passMaxMs: null,
          });
          continue;
        }
        throw error;
      }
      if (page.hasMore && page.nextCursor && options.prefetch !== false) {
        // Fetch the next page while this one is delivered and committed; used only if the checkpoint agrees.
        const next: PageRequest = { cursor: page.nextCursor, updatedSince: request.updatedSince };
        const ahead = options.fetchPage(next, budget.signal);
        ahead.catch(() => undefined); // awaited on the next turn, or dropped if the run stops first
        prefetched = { request: next, page: ahead };
        await requestSent();
      }
      const classified = classifyPage(options, page);
      let deliveryFailures: readonly RecordFailure<T>[] = [];
      if (options.deliver && classified.fresh.length > 0) {
        deliveryFailures =
          (await options.deliver(
            classified.fresh.map((f) => f.item),
            budget.signal,
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
      progress = true;
      passComplete = committed.passComplete;
      counts.pages += 1;
      counts.fetched += page.items.length;
      counts.duplicates += classified.duplicates;
      counts.delivered += committed.delivered;
      counts.deadLettered += committed.deadLettered;
      tracker.succeeded(committed.delivered);
      tracker.failure(committed.deadLettered);
      options.onPage?.({ ...counts });
      breach = tracker.exceeded();
      if (breach) break;
    }
  } catch (error) {
    failure = error;
    if (budget.signal.aborted) stopped = 'aborted';
  }

  const aborted = failure !== undefined && stopped === 'aborted';
  const outcome = decideOutcome({
    progress,
    stopped,
    error: aborted ? undefined : failure,
    thresholdBreach: breach,
  });
  const error = breach ?? (failure !== undefined && !aborted ? errorMessage(failure) : undefined);
  return {
    outcome,
    counts: { ...counts },
    passComplete,
    stopped,
    tally: tracker.tally('records'),
    ...(error === undefined ? {} : { error }),
  };
}
