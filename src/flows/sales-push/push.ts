/**
 * Pushes sales items and keeps each item's result: accepted items in the ledger (by key and content version, with
 * the API id), failed items as dead letters with the API's validation errors. An item whose content is the version
 * the ledger holds as current is not sent again; one that went back to earlier content is. Where a batch holds one
 * key more than once (a POS file that revises a Z-report further down), its last row is the record.
 */
import type { BatchResponse } from '../../contract/index.js';
import { idempotencyKey, contentHash } from '../../engine/index.js';
import type { MissingMapping } from '../../shared/missing-mapping.js';
import type { StateStore } from '../../state/index.js';
import { countHeldBackFor, type HeldBackReasons } from '../shared/held-back.js';
import type { SalesItem, SalesKind } from './bodies.js';

export interface PushTally {
  accepted: number;
  failed: number;
  alreadySent: number;
  /** Rows of the batch that a later row with the same key replaced. */
  superseded: number;
}

export interface PushContext {
  state: StateStore;
  /** Ledger and dead letters are filed under the job's name. */
  flow: string;
  connector: string;
  signal: AbortSignal;
  deadlineMs: number;
  /** The run's held-back reasons: each item the API refused is counted under the refusal. */
  reasons?: HeldBackReasons;
}

/** What a dead letter of this flow stores: enough to send the item again. */
export interface SalesDeadLetter {
  kind: SalesKind;
  batchRef: string | null;
  /** An API body, or (when the branch could not be resolved) the source record as read. */
  body: unknown;
  /** True when `body` is the source record: a replay resolves its branch again first. */
  unresolved?: boolean;
  /** The mapping entry whose absence held the item back, when the job names a branch table. */
  missing?: MissingMapping;
}

type ResultItem = BatchResponse['items'][number];

function describeErrors(result: ResultItem | undefined): string {
  if (result === undefined) return 'the batch response has no result for this item';
  const errors = result.errors ?? [];
  if (errors.length === 0) return `rejected by the API (status ${result.status})`;
  return errors
    .map(
      (e) => `${e.field}: ${e.code}${e.message === undefined || e.message === null ? '' : ` (${e.message})`}`,
    )
    .join('; ');
}

export function deadLetterFailure(
  ctx: Pick<PushContext, 'state' | 'flow'>,
  item: { kind: SalesKind; key: string; body: unknown; unresolved?: boolean; missing?: MissingMapping },
  batchRef: string | null,
  reason: string,
): void {
  const record: SalesDeadLetter = {
    kind: item.kind,
    batchRef,
    body: item.body,
    ...(item.unresolved === true ? { unresolved: true } : {}),
    ...(item.missing === undefined ? {} : { missing: item.missing }),
  };
  ctx.state.deadLetters.add(ctx.flow, item.key, record, reason);
}

export type SendBatch<B> = (
  bodies: B[],
  call: { signal: AbortSignal; deadlineMs: number; idempotencyKey: string },
) => Promise<BatchResponse>;

export async function pushItems<B>(
  ctx: PushContext,
  kind: SalesKind,
  items: readonly SalesItem<B>[],
  batchRef: string | null,
  send: SendBatch<B>,
): Promise<PushTally> {
  const latest = lastOfEachKey(items);
  const tally: PushTally = {
    accepted: 0,
    failed: 0,
    alreadySent: 0,
    superseded: items.length - latest.length,
  };
  const currentVersion = (item: SalesItem<B>) =>
    ctx.state.ledger.latest(ctx.flow, ctx.connector, `${kind}:${item.key}`)?.version ?? null;
  // Sending an earlier row of a key would be a replay once its later row is the ledger's current version (after a
  // crash before the batch was marked): the API would go back to the earlier content.
  const toSend = latest
    .map((item) => ({ item, previous: currentVersion(item) }))
    .filter(({ item, previous }) => previous !== item.version);
  tally.alreadySent = latest.length - toSend.length;
  if (toSend.length === 0) return tally;

  const bodies = toSend.map(({ item }) => item.body);
  // One key per logical push: a retry, or a re-run after a crash before the results were kept, sends the same
  // key with the same body and gets the original response back. The versions being replaced are part of it, so
  // a record that goes back to earlier content (A -> B -> A) is a new push, not a replay of the first one.
  const call = {
    signal: ctx.signal,
    deadlineMs: ctx.deadlineMs,
    idempotencyKey: idempotencyKey(
      ctx.flow,
      kind,
      contentHash({ bodies, replacing: toSend.map(({ previous }) => previous) }),
    ),
  };
  const response = await send(bodies, call);
  keepResults(
    ctx,
    kind,
    toSend.map(({ item }) => item),
    response.items,
    batchRef,
    tally,
  );
  return tally;
}

/** Records each accepted item as the ledger's current version and dead-letters each failed one, in one transaction. */
function keepResults<B>(
  ctx: PushContext,
  kind: SalesKind,
  sent: readonly SalesItem<B>[],
  results: readonly ResultItem[],
  batchRef: string | null,
  tally: PushTally,
): void {
  const byIndex = new Map<number, ResultItem>(results.map((result) => [result.index, result]));
  ctx.state.transaction(() => {
    sent.forEach((item, index) => {
      const result = byIndex.get(index);
      if (result !== undefined && result.status !== 'failed') {
        const recordKey = `${kind}:${item.key}`;
        ctx.state.ledger.recordCurrent(
          { flow: ctx.flow, connector: ctx.connector, recordKey, version: item.version },
          result.id ?? null,
        );
        ctx.state.deadLetters.resolve(ctx.flow, item.key);
        tally.accepted += 1;
      } else {
        const reason = describeErrors(result);
        deadLetterFailure(ctx, item, batchRef, reason);
        countHeldBackFor(ctx.reasons, `refused by the API: ${reason}`);
        tally.failed += 1;
      }
    });
  });
}

/** One item per key, the last of the batch's rows with it, in the order of those last rows. */
function lastOfEachKey<B>(items: readonly SalesItem<B>[]): SalesItem<B>[] {
  const last = new Map<string, number>();
  items.forEach((item, index) => last.set(item.key, index));
  return items.filter((item, index) => last.get(item.key) === index);
}
