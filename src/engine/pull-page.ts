import type { CursorState, SeenVersion } from '../state/cursors.js';
import { letterRecord } from './dead-letter-record.js';
import { errorMessage } from './outcome.js';
import type { Page, PageRequest, PullOptions, RecordFailure } from './pull-types.js';

export interface ClassifiedItem<T> {
  item: T;
  id: string;
  updatedAt: string;
  updatedMs: number;
}

export interface ClassifiedPage<T> {
  fresh: ClassifiedItem<T>[];
  duplicates: number;
  invalid: Array<{ item: T; key: string; reason: string }>;
  maxMs: number | null;
}

/** A record key for an item whose id could not be read, stable across redeliveries. */
function fallbackKey(item: unknown): string {
  const text = JSON.stringify(item) ?? String(item);
  return `invalid:${text.slice(0, 120)}`;
}

/**
 * Splits a page into new versions, versions already delivered (overlap or redelivery) and unreadable items.
 * The seen-set is read in one read transaction (not one per lookup), and only for versions not newer than its
 * newest: a version updated after every version in the set cannot be in it, which on a first pass or past the
 * look-back window is most of a page.
 */
export function classifyPage<T>(options: PullOptions<T>, page: Page<T>): ClassifiedPage<T> {
  const { state, stream } = options;
  return state.db.transaction(() => {
    const result: ClassifiedPage<T> = { fresh: [], duplicates: 0, invalid: [], maxMs: null };
    const inPage = new Set<string>();
    const newestSeenMs = state.seen.newestMs(stream);
    for (const item of page.items) {
      let id: string;
      let updatedAt: string;
      try {
        ({ id, updatedAt } = options.identify(item));
      } catch (error) {
        result.invalid.push({ item, key: fallbackKey(item), reason: errorMessage(error) });
        continue;
      }
      const updatedMs = Date.parse(updatedAt);
      if (!Number.isFinite(updatedMs)) {
        result.invalid.push({ item, key: id, reason: `unreadable updated_at ${JSON.stringify(updatedAt)}` });
        continue;
      }
      result.maxMs = result.maxMs === null ? updatedMs : Math.max(result.maxMs, updatedMs);
      const versionKey = `${id}\u0000${updatedAt}`;
      const maybeSeen = newestSeenMs !== null && updatedMs <= newestSeenMs;
      if (inPage.has(versionKey) || (maybeSeen && state.seen.has(stream, id, updatedAt))) {
        result.duplicates += 1;
        continue;
      }
      inPage.add(versionKey);
      result.fresh.push({ item, id, updatedAt, updatedMs });
    }
    return result;
  })();
}

export interface CommitInput<T> {
  request: PageRequest;
  page: Page<T>;
  classified: ClassifiedPage<T>;
  /** Records the external delivery rejected, by identity. */
  deliveryFailures: readonly RecordFailure<T>[];
  cursor: CursorState | null;
  resolveDeadLetters: boolean;
}

export interface CommitResult {
  delivered: number;
  deadLettered: number;
  passComplete: boolean;
}

/**
 * Commits one page in ONE transaction: staged records, dead letters, the seen-set and the cursor. A crash before
 * the commit leaves none of it; after it, all of it.
 */
export function commitPage<T>(options: PullOptions<T>, input: CommitInput<T>): CommitResult {
  const { state, stream } = options;
  const flow = options.flow ?? stream;
  const passComplete = !input.page.hasMore;
  const cursor = nextCursor(options, input, passComplete);
  // A page that brings nothing new and leaves the cursor where it was commits no page: its stream's time moves,
  // without an fsync of its own.
  if (changesNothing(input, cursor)) {
    state.cursors.touch(stream);
    return { delivered: 0, deadLettered: 0, passComplete };
  }
  const failedItems = new Map<T, string>(input.deliveryFailures.map((f) => [f.item, f.reason]));
  const missingOf = new Map(input.deliveryFailures.map((f) => [f.item, f.missing]));
  return state.transaction(() => {
    let delivered = 0;
    let deadLettered = 0;
    const toStage = input.classified.fresh
      .map((entry) => entry.item)
      .filter((item) => !failedItems.has(item));
    for (const [item, reason] of stageRecords(options, toStage)) failedItems.set(item, reason);
    for (const entry of input.classified.fresh) {
      const reason = failedItems.get(entry.item);
      if (reason === undefined) {
        delivered += 1;
        if (input.resolveDeadLetters) state.deadLetters.resolve(flow, entry.id);
      } else {
        state.deadLetters.add(flow, entry.id, letterRecord(entry.item, missingOf.get(entry.item)), reason);
        deadLettered += 1;
      }
    }
    state.seen.addMany(stream, input.classified.fresh.map(seenVersion));
    for (const bad of input.classified.invalid) {
      state.deadLetters.add(flow, bad.key, bad.item, bad.reason);
      deadLettered += 1;
    }
    state.cursors.save(cursor);
    // Versions at or before (watermark - overlap) can never come back from a strictly-after query.
    if (passComplete && cursor.watermarkMs !== null) {
      state.seen.prune(stream, cursor.watermarkMs - options.overlapMs);
    }
    return { delivered, deadLettered, passComplete };
  });
}

type SavedCursor = Omit<CursorState, 'updatedAt'>;

function changesNothing<T>(input: CommitInput<T>, cursor: SavedCursor): boolean {
  const stored = input.cursor;
  return (
    input.classified.fresh.length === 0 &&
    input.classified.invalid.length === 0 &&
    stored !== null &&
    stored.watermarkMs === cursor.watermarkMs &&
    stored.passCursor === cursor.passCursor &&
    stored.passSince === cursor.passSince &&
    stored.passMaxMs === cursor.passMaxMs
  );
}

/**
 * Stages the page's records; returns the ones that could not be staged, with the reason. All of them are first
 * staged in one savepoint (a nested transaction); only when one throws is that rolled back and each record staged
 * in a savepoint of its own, so a bad record takes back only its own writes. A savepoint per record would cost
 * more than most stage functions.
 */
function stageRecords<T>(options: PullOptions<T>, items: readonly T[]): Map<T, string> {
  const failures = new Map<T, string>();
  const { state, stageRecord } = options;
  if (!stageRecord || items.length === 0) return failures;
  try {
    state.db.transaction(() => {
      for (const item of items) stageRecord(item, state);
    })();
    return failures;
  } catch {
    const stageOne = state.db.transaction((item: T) => stageRecord(item, state));
    for (const item of items) {
      try {
        stageOne(item);
      } catch (error) {
        failures.set(item, errorMessage(error));
      }
    }
    return failures;
  }
}

function seenVersion<T>(entry: ClassifiedItem<T>): SeenVersion {
  return { recordId: entry.id, updatedAt: entry.updatedAt, updatedMs: entry.updatedMs };
}

/** Where the stream stands once this page is committed: inside its pass, or at the pass's end. */
function nextCursor<T>(options: PullOptions<T>, input: CommitInput<T>, passComplete: boolean): SavedCursor {
  const { stream } = options;
  const previousMax = input.request.cursor === null ? null : (input.cursor?.passMaxMs ?? null);
  const pageMax = input.classified.maxMs;
  const passMaxMs =
    previousMax === null ? pageMax : pageMax === null ? previousMax : Math.max(previousMax, pageMax);
  const watermarkMs = input.cursor?.watermarkMs ?? null;
  if (!passComplete) {
    return {
      stream,
      watermarkMs,
      passCursor: input.page.nextCursor,
      passSince: input.request.updatedSince,
      passMaxMs,
    };
  }
  // The pass reached the end: every record up to its newest timestamp has been processed.
  const reached =
    watermarkMs === null ? passMaxMs : passMaxMs === null ? watermarkMs : Math.max(watermarkMs, passMaxMs);
  const ceiling = options.watermarkCeiling?.() ?? null;
  const next =
    reached === null || ceiling === null
      ? reached
      : Math.max(watermarkMs ?? Number.NEGATIVE_INFINITY, Math.min(reached, ceiling));
  return { stream, watermarkMs: next, passCursor: null, passSince: null, passMaxMs: null };
}
