/** Supplier documents: list, create (Idempotency-Key required), read one (gap G8). */
import type { Document } from '../../contract/index.js';
import { ClientConfigError } from '../errors.js';
import { requestResource, type ClientContext } from '../context.js';
import { paginate, type Paginated } from '../pagination.js';
import { parsers } from '../parsers.js';
import type { CallOptions } from '../transport.js';
import {
  callOf,
  listSpec,
  type DateRange,
  type Expand,
  type ListOptions,
  type UpdatedSince,
} from './common.js';
import { SUPPLIER_DOCUMENT_ROUTES } from './gap-routes.js';
import type { CreateDocumentBody } from '../request-types.js';

export interface SupplierDocumentFilters extends UpdatedSince, DateRange, Expand {
  /** Document types, sent comma-separated. */
  type?: readonly string[];
  buyer_status?: string;
}

export function createDocumentsApi(ctx: ClientContext) {
  return {
    list(options: ListOptions<SupplierDocumentFilters> = {}): Paginated<Document> {
      return paginate(ctx, listSpec(SUPPLIER_DOCUMENT_ROUTES.list, options), parsers.document);
    },
    get(documentId: string, options: CallOptions & { expand?: readonly string[] } = {}): Promise<Document> {
      return requestResource(
        ctx,
        {
          method: 'GET',
          route: SUPPLIER_DOCUMENT_ROUTES.one,
          params: { document_id: documentId },
          query: { expand: options.expand },
          ...callOf(options),
        },
        parsers.document,
      );
    },
    /** The contract requires an Idempotency-Key here: pass a stable one built from type and number. */
    create(body: CreateDocumentBody, options: CallOptions & { idempotencyKey: string }): Promise<Document> {
      if (!options.idempotencyKey) {
        throw new ClientConfigError('idempotency_key_required', 'documents.create needs an idempotencyKey');
      }
      return requestResource(
        ctx,
        { method: 'POST', route: SUPPLIER_DOCUMENT_ROUTES.list, json: body, ...callOf(options) },
        parsers.document,
      );
    },
  };
}

export type DocumentsApi = ReturnType<typeof createDocumentsApi>;
