/** Shared shapes of part 2.2. */
import * as z from 'zod';
import { BATCH_ITEM_STATUSES, HISTORY_ACTOR_TYPES } from './enums.js';
import { Id, Money, NonNegativeInt, TimeOfDay, Timestamp, Uri } from './formats.js';
import type { SchemaKit } from './kit.js';

/** References, amounts, times and files that resources embed. */
function embeddedShapes(k: SchemaKit) {
  const PartyRef = k.object({ id: Id, name: z.string() });
  const BranchRef = k.object({ id: Id, name: z.string(), tax_id: z.string().nullable().optional() });
  const Totals = k.object({
    before_vat: Money,
    vat: Money,
    with_vat: Money,
    discount: Money.optional(),
  });
  const ExpenseTotals = Totals.extend({ deductible_vat: Money.optional() });
  const TimeWindow = k.object({ from: TimeOfDay, to: TimeOfDay });
  const FileRef = k.object({
    id: Id,
    name: z.string(),
    content_type: z.string().optional(),
    size_bytes: NonNegativeInt.optional(),
    download_url: Uri.optional(),
  });
  const HistoryEntry = k.object({
    at: Timestamp,
    action: z.string(),
    actor: k.object({ type: k.enumOf(HISTORY_ACTOR_TYPES), id: z.string(), name: z.string() }),
    changes: z.record(z.string(), k.object({ from: z.unknown(), to: z.unknown() })).optional(),
  });
  return { PartyRef, BranchRef, Totals, ExpenseTotals, TimeWindow, FileRef, HistoryEntry };
}

/** Batch results and the list envelopes. */
function responseShapes(k: SchemaKit) {
  /** `code` is an open set (part 7 lists codes "seen"), so it is a plain string in both modes. */
  const ValidationErrorItem = k.object({
    field: z.string(),
    code: z.string(),
    message: z.string().optional(),
  });
  const BatchItemResult = k.object({
    index: NonNegativeInt,
    key: z.string().optional(),
    status: k.enumOf(BATCH_ITEM_STATUSES),
    id: z.string().optional(),
    errors: z.array(ValidationErrorItem).optional(),
  });
  const BatchResponse = k.object({
    summary: k.object({
      total: NonNegativeInt,
      succeeded: NonNegativeInt,
      failed: NonNegativeInt,
      skipped: NonNegativeInt,
    }),
    items: z.array(BatchItemResult),
  });
  /**
   * The page envelope with items left unparsed: a sync parses each item on its own, so one bad item is
   * quarantined while the rest of the page still syncs. Use `pageOf` for a fully typed page.
   */
  const PageEnvelope = k.object({
    data: z.array(z.unknown()),
    next_cursor: z.string().nullable().optional(),
    has_more: z.boolean(),
  });
  /** `data` without paging fields (GET /purchase-types, /webhooks ...). */
  const ListEnvelope = k.object({ data: z.array(z.unknown()) });
  return {
    ValidationErrorItem,
    BatchItemResult,
    BatchResponse,
    PageEnvelope,
    ListEnvelope,
  };
}

export function defineShared(k: SchemaKit) {
  return { ...embeddedShapes(k), ...responseShapes(k) };
}

export type SharedShapes = ReturnType<typeof defineShared>;

/** A fully typed page of `item` in the kit's mode. */
export function pageOf<T extends z.ZodType>(k: SchemaKit, item: T) {
  return k.object({
    data: z.array(item),
    next_cursor: z.string().nullable().optional(),
    has_more: z.boolean(),
  });
}

/** A fully typed unpaged list of `item` in the kit's mode. */
export function listOf<T extends z.ZodType>(k: SchemaKit, item: T) {
  return k.object({ data: z.array(item) });
}
