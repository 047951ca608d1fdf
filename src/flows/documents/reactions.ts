/**
 * Buyer reactions -> the ERP. /supplier/documents is pulled incrementally (updated_since with a look-back
 * overlap, checkpointed per page); webhooks only trigger a run. Each reaction is written once per document, buyer
 * status and differences: the ledger records it after the ERP write, and the sink is idempotent, so a crash
 * between the two rewrites the same values.
 */
import type { Document } from '../../contract/index.js';
import type { DocumentReaction, DocumentReactionSink } from '../../connectors/index.js';
import { contentHash, pullIncremental, type PullResult, type RunBudget } from '../../engine/index.js';
import type { StateStore } from '../../state/index.js';
import type { DocumentsApi } from './api.js';
import type { ProgressStore } from './progress.js';

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

export async function pullReactions(input: ReactionPullInput): Promise<PullResult> {
  const ledgerFlow = `${input.job}:reactions`;
  const versionOf = (doc: Document): string => `${doc.buyer_status}:${contentHash(doc.differences ?? [])}`;
  return pullIncremental<Document>({
    state: input.state,
    stream: `${input.job}:/supplier/documents`,
    flow: ledgerFlow,
    overlapMs: input.overlapMs,
    budget: input.budget,
    async fetchPage(request, signal) {
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
        input.state.deadLetters.add(ledgerFlow, key, item.raw, `unexpected API payload: ${item.reason}`);
      }
      input.counts['documents_quarantined'] =
        (input.counts['documents_quarantined'] ?? 0) + page.quarantined.length;
      return { items: page.items, nextCursor: page.nextCursor, hasMore: page.hasMore };
    },
    identify: (doc) => ({ id: doc.id, updatedAt: doc.updated_at }),
    async deliver(docs) {
      for (const doc of docs) {
        if (!isReaction(doc)) continue;
        if (input.scope === 'sent' && !input.progress.isOurs(doc.id)) continue;
        const key = {
          flow: ledgerFlow,
          connector: input.connector,
          recordKey: doc.id,
          version: versionOf(doc),
        };
        if (input.state.ledger.has(key)) continue;
        await input.sink.writeDocumentReaction(reactionOf(doc));
        input.state.ledger.record(key);
        input.counts['reactions_written'] = (input.counts['reactions_written'] ?? 0) + 1;
      }
    },
  });
}
