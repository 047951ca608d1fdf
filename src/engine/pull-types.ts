import type { MissingMapping } from '../shared/missing-mapping.js';
import type { StateStore } from '../state/store.js';
import type { ErrorThreshold } from './job.js';
import type { RunBudget, StopReason } from './outcome.js';
import type { RunResult } from './job.js';

/** What the pull asks the source for: resume a pass with the API's cursor, or start one from `updatedSince`. */
export interface PageRequest {
  cursor: string | null;
  /** RFC 3339 UTC timestamp; the source returns items updated strictly after it. null: from the beginning. */
  updatedSince: string | null;
}

export interface Page<T> {
  items: readonly T[];
  nextCursor: string | null;
  hasMore: boolean;
}

export interface RecordIdentity {
  id: string;
  /** The record's updated_at exactly as the source sent it. */
  updatedAt: string;
}

export interface RecordFailure<T> {
  item: T;
  reason: string;
  /** The mapping the record lacks, when that is the whole reason: filed with the letter (dead-letter-record.ts). */
  missing?: MissingMapping;
}

export interface PullOptions<T> {
  state: StateStore;
  /** Names the cursor and seen-set, for example `orders:/supplier/orders`. */
  stream: string;
  /** Dead letters are filed under this flow name; the stream name by default. */
  flow?: string;
  /** Any list endpoint: the daemon passes the API client's page fetcher. Must honour `updatedSince` strictly. */
  fetchPage(request: PageRequest, signal: AbortSignal): Promise<Page<T>>;
  /** Reads id and updated_at; throwing (or an unparsable timestamp) dead-letters the item. */
  identify(item: T): RecordIdentity;
  /**
   * Stages one record inside the page's checkpoint transaction (its own savepoint: a throw dead-letters only
   * this record). Synchronous, as SQLite transactions are.
   */
  stageRecord?(item: T, state: StateStore): void;
  /**
   * Writes a page's new records somewhere outside the state file, before the checkpoint commits. Must be
   * idempotent (record each write in the ledger): a crash after it and before the checkpoint replays the page.
   * Returns the records that failed (the same item objects it was given); throwing fails the whole page, which
   * is then not checkpointed.
   */
  deliver?(items: readonly T[], signal: AbortSignal): Promise<readonly RecordFailure<T>[] | void>;
  /** Look-back window for rows committed late with equal or earlier timestamps. */
  overlapMs: number;
  budget: RunBudget;
  errorThreshold?: ErrorThreshold;
  /**
   * The highest watermark a pass may set, in source time (for example the source's clock minus its commit lag,
   * from the API's Date header). Late commits that land while a long pass reads newer rows are covered by the
   * overlap only up to this ceiling; without one, the overlap must exceed commit lag plus the growth of the
   * stream during a pass. Records above the ceiling are re-read by the next pass and dropped by the seen-set.
   */
  watermarkCeiling?(): number | null;
  /** When resuming a pass, whether a fetch error means the stored API cursor is no longer valid. */
  isStaleCursorError?(error: unknown): boolean;
  /**
   * Deliver the records changed after the watermark before re-reading the look-back window (default false): for
   * runs nudged by a webhook, whose new record is then written after one short page. Needs `deliver` and no
   * `stageRecord`; the pass itself is unchanged.
   */
  headFirst?: boolean;
  /** Fetch the next page while the current one is committed (default true): hides the fsync behind the network. */
  prefetch?: boolean;
  /** Called after each committed page. */
  onPage?(progress: PullCounts): void;
}

export interface PullCounts {
  pages: number;
  fetched: number;
  delivered: number;
  duplicates: number;
  deadLettered: number;
  replayed: number;
}

export interface PullResult extends RunResult {
  counts: PullCounts & Record<string, number>;
  /** The run reached the end of a pass: the watermark moved to its newest record. */
  passComplete: boolean;
  stopped: StopReason | null;
}
