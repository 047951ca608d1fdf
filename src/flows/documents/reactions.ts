/**
 * Buyer reactions -> the ERP. /supplier/documents is pulled incrementally (updated_since with a look-back
 * overlap, checkpointed per page); webhooks only trigger a run. A reaction is written when a document's buyer
 * status or differences differ from the last ones written for it, so a status that goes A -> B -> A is written
 * three times, and a re-read of the same state (overlap, replayed webhook, unrelated change) not at all. The
 * ledger records each write after the ERP write, and the sink is idempotent, so a crash between the two rewrites
 * the same values.
 *
 * With scope "sent", a document the state does not know as ours is skipped, except when its type and number are
 * those of a document whose send failed in this run: the API may have created it without the answer reaching us.
 * Such a document is deferred (kept by API id) and looked at again on the next run, once its send is settled.
 */
import type { Document } from '../../contract/index.js';
import type { DocumentReaction, DocumentReactionSink } from '../../connector-contract/index.js';
import {
  contentHash,
  pullIncremental,
  type Page,
  type PageRequest,
  type PullResult,
  type RunBudget,
} from '../../engine/index.js';
import type { StateStore } from '../../state/index.js';
import type { DocumentsApi } from './api.js';
import { documentKey, type ProgressStore } from './progress.js';

export interface ReactionPullInput {
  api: DocumentsApi;
  sink: DocumentReactionSink;
  state: StateStore;
  progress: ProgressStore;
  job: string;
  connector: string;
  scope: 'sent' | 'all';
  pageSize: number;
  overlapMs: number;
  budget: RunBudget;
  counts: Record<string, number>;
  /** documentKey(type, number) of the documents whose send failed in this run. */
  unsettled: ReadonlySet<string>;
}

/** Statuses that carry a buyer reaction; `pending` is the state a new document starts in. */
function isReaction(doc: Document): boolean {
  return doc.buyer_status !== 'pending';
}

export function reactionOf(doc: Document): DocumentReaction {
  return {
    apiDocumentId: doc.id,
    documentType: doc.type,
    documentNumber: doc.number,
    buyerStatus: doc.buyer_status,
    occurredAt: doc.updated_at,
    differences: (doc.differences ?? []).map((difference) => ({
      lineRef: difference.line_id ?? null,
      itemCode: difference.sku ?? null,
      field: difference.field,
      issued: difference.issued ?? null,
      received: difference.received ?? null,
      note: difference.note ?? null,
    })),
  };
}

/** What a reaction says, without when: two reads of the same status and differences are the same reaction. */
function reactionContent(doc: Document): string {
  return `${doc.buyer_status}:${contentHash(doc.differences ?? [])}`;
}

/** Ledger versions are "<content>@<updated_at>"; entries written before the suffix existed hold the content alone. */
function contentOfVersion(version: string): string {
  const at = version.lastIndexOf('@');
  return at < 0 ? version : version.slice(0, at);
}

export async function pullReactions(input: ReactionPullInput): Promise<PullResult> {
  await settleDeferred(input);
  return pullIncremental<Document>({
    state: input.state,
    stream: `${input.job}:/supplier/documents`,
    flow: ledgerFlowOf(input),
    overlapMs: input.overlapMs,
    budget: input.budget,
    fetchPage: (request, signal) => fetchDocumentPage(input, request, signal),
    identify: (doc) => ({ id: doc.id, updatedAt: doc.updated_at }),
    async deliver(docs) {
      for (const doc of docs) await deliverOne(input, doc);
    },
  });
}

/** The ledger flow of the reactions written, keyed by API document id. */
function ledgerFlowOf(input: ReactionPullInput): string {
  return `${input.job}:reactions`;
}

/** Deferred documents: API id -> documentKey of the unsettled send. */
function deferredNamespaceOf(input: ReactionPullInput): string {
  return `${input.job}:reactions-deferred`;
}

async function fetchDocumentPage(
  input: ReactionPullInput,
  request: PageRequest,
  signal: AbortSignal,
): Promise<Page<Document>> {
  const page = await input.api.documents
    .list({
      limit: input.pageSize,
      ...(request.cursor === null ? {} : { cursor: request.cursor }),
      ...(request.updatedSince === null ? {} : { updated_since: request.updatedSince }),
      signal,
    })
    .firstPage();
  // A document the client could not parse is kept with its reason, so the cursor can move on without losing it.
  for (const item of page.quarantined) {
    const id = (item.raw as { id?: unknown } | null)?.id;
    const key = typeof id === 'string' ? id : `unparsed:${page.requestId ?? 'page'}:${item.index}`;
    input.state.deadLetters.add(ledgerFlowOf(input), key, item.raw, `unexpected API payload: ${item.reason}`);
  }
  input.counts['documents_quarantined'] =
    (input.counts['documents_quarantined'] ?? 0) + page.quarantined.length;
  return { items: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore };
}

async function deliverOne(input: ReactionPullInput, doc: Document): Promise<void> {
  if (input.scope === 'sent' && !input.progress.isOurs(doc.id)) {
    if (input.unsettled.has(documentKey(doc.type, doc.number))) {
      input.state.kv.set(deferredNamespaceOf(input), doc.id, documentKey(doc.type, doc.number));
      input.counts['reactions_deferred'] = (input.counts['reactions_deferred'] ?? 0) + 1;
    }
    return;
  }
  if (isReaction(doc)) await writeIfChanged(input, doc);
}

/** Documents deferred by an earlier run: written once known as ours, dropped once their send settled otherwise. */
async function settleDeferred(input: ReactionPullInput): Promise<void> {
  const deferredNamespace = deferredNamespaceOf(input);
  for (const apiId of input.state.kv.keys(deferredNamespace)) {
    const localKey = input.state.kv.get(deferredNamespace, apiId);
    if (typeof localKey === 'string' && input.unsettled.has(localKey)) continue;
    if (input.progress.isOurs(apiId)) {
      const doc = await input.api.documents.get(apiId, { signal: input.budget.signal });
      if (isReaction(doc)) await writeIfChanged(input, doc);
    }
    input.state.kv.delete(deferredNamespace, apiId);
  }
}

/** Writes the reaction to the ERP, then records it in the ledger, unless the last one written says the same. */
async function writeIfChanged(input: ReactionPullInput, doc: Document): Promise<void> {
  const ledgerFlow = ledgerFlowOf(input);
  const content = reactionContent(doc);
  const last = input.state.ledger.latest(ledgerFlow, input.connector, doc.id);
  if (last !== null && contentOfVersion(last.version) === content) return;
  const key = {
    flow: ledgerFlow,
    connector: input.connector,
    recordKey: doc.id,
    version: `${content}@${doc.updated_at}`,
  };
  await input.sink.writeDocumentReaction(reactionOf(doc));
  input.state.ledger.record(key);
  input.counts['reactions_written'] = (input.counts['reactions_written'] ?? 0) + 1;
}
