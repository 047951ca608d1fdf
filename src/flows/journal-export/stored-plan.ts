/**
 * The form a batch plan takes in the state store. Saving a plan is on the walk's path once per batch, so the stored
 * form names each line id once and spells entries as arrays (no key names, no line numbers): the documents in batch
 * order with how many entries each has and the ids of its lines that have none (zero amounts), and the entries with
 * their source ids. Everything else derives from these. Decoding refuses a value that is not a plan of either form,
 * and recomputes the batch key from the line ids, refusing a plan whose key does not match: a plan whose line ids
 * were damaged stops the run rather than being dropped (its lines would be planned again). The stored text ends
 * with a SHA-256 digest of the rest of it, so that a plan whose entries were damaged (an amount, an account) stops
 * the run too instead of reaching the books; plans saved before the digest are read without it.
 *
 * Plans saved before this form (version 1, the plan object as is) are still read: a state file may hold one from a
 * run that stopped mid-batch before an upgrade.
 */
import { createHash } from 'node:crypto';
import type { JournalEntry } from '../../connector-contract/journal.js';
import { batchKeyFor, documentLinesOf, type BatchPlan } from './batch-plan.js';

/** [documentId, entry count, ...ids of the document's lines without an entry]. */
type StoredDocument = [string, number, ...string[]];

/** A JournalEntry's fields in this order; the line number is the entry's position in the batch (from 1). */
type StoredEntry = [
  side: JournalEntry['side'],
  account: string,
  counterAccount: string | null,
  amount: string,
  currency: string,
  date: string,
  valueDate: string,
  period: string,
  reference: string,
  reference2: string | null,
  branchCode: string | null,
  movementType: string | null,
  description: string,
  branchId: string | null,
  purchaseType: string | null,
  vendorTaxId: string | null,
  sourceIds: readonly string[],
];

export interface StoredPlanV2 {
  readonly version: 2;
  readonly batchKey: string;
  readonly createdAt: number;
  readonly target: string;
  readonly periods: readonly string[];
  readonly documents: readonly StoredDocument[];
  readonly entries: readonly StoredEntry[];
}

/**
 * A saved plan that cannot be read. `newer`: its form is one a later version writes (after a downgrade: that version
 * finishes it); `damaged`: anything else.
 */
export class StoredPlanError extends Error {
  override readonly name = 'StoredPlanError';
  constructor(
    message: string,
    readonly kind: 'damaged' | 'newer' = 'damaged',
  ) {
    super(message);
  }
}

/** The newest form this version writes and reads. */
const NEWEST_FORM = 2;

/**
 * The stored form of a plan. Plans as buildPlan and splitByDocument make them (entries by document, numbered from
 * 1, each line id under one entry at most, not yet written) take the compact form; any other is kept whole.
 */
export function encodePlan(plan: BatchPlan): StoredPlanV2 | BatchPlan {
  // A digest read back by a version before digests stays on the plan object; the text gets a fresh one.
  const { prepared: _prepared, digest: _digest, ...whole } = plan as BatchPlan & { digest?: unknown };
  return (!plan.written && compactForm(plan)) || whole;
}

function compactForm(plan: BatchPlan): StoredPlanV2 | null {
  const entries = plan.batch.entries;
  const documents: StoredDocument[] = [];
  let next = 0;
  let lines = 0;
  for (const documentId of plan.documentIds) {
    const own = plan.documentLines[documentId] ?? [];
    const ownSet = new Set(own);
    const withEntry = new Set<string>();
    let count = 0;
    let sources = 0;
    while (next < entries.length && belongsTo(entries[next], ownSet)) {
      for (const id of entries[next]?.sourceIds ?? []) withEntry.add(id);
      sources += entries[next]?.sourceIds.length ?? 0;
      next += 1;
      count += 1;
    }
    if (sources !== withEntry.size || ownSet.size !== own.length) return null;
    documents.push([documentId, count, ...own.filter((id) => !withEntry.has(id))]);
    lines += own.length;
  }
  if (next !== entries.length || lines !== plan.lineIds.length) return null;
  if (entries.some((entry, i) => entry.lineNumber !== i + 1)) return null;
  return {
    version: 2,
    batchKey: plan.batchKey,
    createdAt: plan.createdAt,
    target: plan.target,
    periods: plan.periods,
    documents,
    entries: entries.map(storedEntry),
  };
}

/** The stored form's last field: the SHA-256 (hex) of the stored form's JSON without it. */
const DIGEST_FIELD = 'digest';

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The text a plan is saved as: its stored form as JSON with the digest of that JSON appended as a last field
 * (appended, so the walk serializes each plan once).
 */
export function storedPlanText(plan: BatchPlan): string {
  const body = JSON.stringify(encodePlan(plan));
  return `${body.slice(0, -1)},"${DIGEST_FIELD}":"${digestOf(body)}"}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The stored form without its digest, once the digest is checked. JSON.parse keeps the fields in the order of the
 * text and JSON.stringify writes them back in that order, so the stored form without the digest serializes to the
 * text the digest was taken of.
 */
function checkedContent(stored: Record<string, unknown>, key: string): Record<string, unknown> {
  if (!Object.hasOwn(stored, DIGEST_FIELD)) return stored; // saved before plans had a digest
  const { [DIGEST_FIELD]: digest, ...content } = stored;
  if (typeof digest !== 'string' || digestOf(JSON.stringify(content)) !== digest) {
    throw new StoredPlanError(`the saved plan ${key} does not match its checksum; it is damaged`);
  }
  return content;
}

/**
 * The plan a stored value holds (either form), saved under the key `savedAs` if given. Throws StoredPlanError on
 * anything else: a value in the plans' namespace that cannot be read is a plan whose batch may have been written,
 * so it is never skipped.
 */
export function decodePlan(value: unknown, savedAs?: string): BatchPlan {
  const named = isRecord(value) && typeof value['batchKey'] === 'string' ? value['batchKey'] : null;
  const key = savedAs ?? named ?? '(no batch key)';
  if (savedAs !== undefined && named !== null && named !== savedAs) {
    throw new StoredPlanError(`the saved plan ${savedAs} names batch ${named}; it is damaged`);
  }
  const form = isRecord(value) ? value['version'] : undefined;
  if (typeof form === 'number' && Number.isInteger(form) && form > NEWEST_FORM) {
    throw new StoredPlanError(
      `the saved plan ${key} is in form ${form}, which only a newer version reads; it is newer or damaged`,
      'newer',
    );
  }
  const stored = isRecord(value) ? checkedContent(value, key) : {};
  if (stored['version'] === 1 && Array.isArray(stored['lineIds'])) return stored as unknown as BatchPlan;
  if (stored['version'] === 2 && Array.isArray(stored['documents']) && Array.isArray(stored['entries'])) {
    const documents = stored['documents'] as unknown[];
    if (typeof stored['batchKey'] === 'string' && documents.every(isStoredDocument)) {
      return planFromV2(stored as unknown as StoredPlanV2);
    }
  }
  throw new StoredPlanError(
    `the saved plan ${key} is not a plan this version can read; it is damaged or newer`,
  );
}

function isStoredDocument(value: unknown): boolean {
  if (!Array.isArray(value) || typeof value[0] !== 'string') return false;
  const count: unknown = value[1];
  return (
    Number.isInteger(count) && (count as number) >= 0 && value.slice(2).every((id) => typeof id === 'string')
  );
}

function planFromV2(stored: StoredPlanV2): BatchPlan {
  const entries = stored.entries.map(entryFrom);
  const documents: { documentId: string; lineIds: string[] }[] = [];
  const lineIds: string[] = [];
  let next = 0;
  for (const [documentId, count, ...withoutEntry] of stored.documents) {
    const own = [...withoutEntry];
    for (const entry of entries.slice(next, next + count)) own.push(...entry.sourceIds);
    next += count;
    own.sort();
    documents.push({ documentId, lineIds: own });
    lineIds.push(...own);
  }
  lineIds.sort();
  if (next !== entries.length || batchKeyFor(lineIds) !== stored.batchKey) {
    throw new StoredPlanError(`the saved plan ${stored.batchKey} does not match its line ids; it is damaged`);
  }
  return {
    version: 1,
    batchKey: stored.batchKey,
    createdAt: stored.createdAt,
    lineIds,
    documentIds: documents.map((document) => document.documentId),
    documentLines: documentLinesOf(documents),
    periods: stored.periods,
    batch: { batchKey: stored.batchKey, entries },
    target: stored.target,
    written: false,
    location: null,
  };
}

function belongsTo(entry: JournalEntry | undefined, own: ReadonlySet<string>): boolean {
  return entry !== undefined && entry.sourceIds.length > 0 && entry.sourceIds.every((id) => own.has(id));
}

function storedEntry(entry: JournalEntry): StoredEntry {
  return [
    entry.side,
    entry.account,
    entry.counterAccount,
    entry.amount,
    entry.currency,
    entry.date,
    entry.valueDate,
    entry.period,
    entry.reference,
    entry.reference2,
    entry.branchCode,
    entry.movementType,
    entry.description,
    entry.branchId ?? null,
    entry.purchaseType ?? null,
    entry.vendorTaxId ?? null,
    entry.sourceIds,
  ];
}

function entryFrom(stored: StoredEntry, i: number): JournalEntry {
  const [side, account, counterAccount, amount, currency, date, valueDate, period, reference, reference2] =
    stored;
  const [
    ,
    ,
    ,
    ,
    ,
    ,
    ,
    ,
    ,
    ,
    branchCode,
    movementType,
    description,
    branchId,
    purchaseType,
    vendorTaxId,
    sourceIds,
  ] = stored;
  return {
    side,
    account,
    counterAccount,
    amount,
    currency,
    date,
    valueDate,
    period,
    reference,
    reference2,
    branchCode,
    movementType,
    description,
    branchId,
    purchaseType,
    vendorTaxId,
    sourceIds,
    lineNumber: i + 1,
  };
}
