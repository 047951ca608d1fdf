/**
 * Every choice made where the contract says "not shown" (docs/contract-gaps.md explains each one, G1..G33).
 * This is the one place to change when the contract is completed: client, sandbox and daemon read these values.
 * Paths are below /v2. Schemas are built per mode by `defineGapSchemas` (wired in build.ts).
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { addMoney, compareMoney, isMoney, moneyEquals, sumMoney } from '../shared/decimal.js';
import { CURRENCIES, DOCUMENT_TYPES, type ORDER_STATUSES } from './enums.js';
import type { EventType } from './event-types.js';
import { AccountingPeriod, DateString, Id, Money, Quantity, Timestamp } from './formats.js';
import { type SchemaKit, itemCodeParams } from './kit.js';
import { LIMITS } from './limits.js';
import type { SharedShapes } from './shared.js';

type OrderStatus = (typeof ORDER_STATUSES)[number];

// ---------- G1-G5 supplier order operations ----------
export const ORDER_OPERATIONS = {
  confirm: {
    path: '/supplier/orders/{order_id}/confirm',
    scope: 'supplier.orders:write',
    allowedFrom: ['pending_approval'] as readonly OrderStatus[],
    /** Repeating the identical confirmation here answers 200 with no change and no event. */
    idempotentIn: ['approved', 'partially_approved'] as readonly OrderStatus[],
    idempotencyKey: 'optional',
  },
  acknowledge: {
    path: '/supplier/orders/{order_id}/acknowledge',
    scope: 'supplier.orders:write',
    forbiddenIn: ['draft'] as readonly OrderStatus[],
    externalRefLength: { min: 1, max: 64 },
  },
  reject: {
    path: '/supplier/orders/{order_id}/reject',
    scope: 'supplier.orders:write',
    allowedFrom: ['pending_approval'] as readonly OrderStatus[],
    reasonLength: { min: 1, max: 500 },
  },
  /** G4: no supplier-side schedule operation; waiting_to_send is a buyer-side scheduled send. */
  scheduleOffered: false,
} as const;

/** G1/G3: events a supplier's confirm or reject raises (to the supplier, to the buyer). */
export const ORDER_DECISION_EVENTS = { supplier: 'order.updated', buyer: 'order.status_changed' } as const;

/** G5: buyer cancellation (sandbox control plane): from-status -> resulting status and event. */
export const ORDER_CANCELLATION: Partial<Record<OrderStatus, { to: OrderStatus; event: EventType }>> = {
  pending_approval: { to: 'cancelled', event: 'order.cancelled' },
  approved: { to: 'cancelled_after_approval', event: 'order.updated' },
  partially_approved: { to: 'cancelled_after_approval', event: 'order.updated' },
};

/** G6: strong ETag of orders and supplier buyers: the quoted SHA-1 hex of id + updated_at. */
export function resourceEtag(id: string, updatedAt: string): string {
  return `"${createHash('sha1')
    .update(id + updatedAt)
    .digest('hex')}"`;
}

// ---------- G7-G9 supplier documents ----------
export const DOCUMENT_OPERATIONS = {
  create: { path: '/supplier/documents', scope: 'supplier.documents:write', idempotencyKey: 'required' },
  get: { path: '/supplier/documents/{document_id}', scope: 'supplier.documents:read' },
  /** Bulk document creation is not offered. */
  bulkCreateOffered: false,
  numberLength: { min: 1, max: LIMITS.length.docNumber },
} as const;

/** G7: allocation number is required above this amount (totals.before_vat) for these document types. */
export const ALLOCATION_NUMBER_RULE = {
  threshold: LIMITS.allocationNumberThreshold,
  appliesTo: 'totals.before_vat',
  documentTypes: ['invoice', 'consolidated_invoice', 'credit_note'] as const,
} as const;

/** G7: the state of a newly created supplier document. */
export const NEW_DOCUMENT_STATE = {
  buyer_status: 'pending',
  payment_status: 'unpaid',
  export_status: 'not_ready',
  source: 'purchase',
} as const;

/** G9: buyer_status moves (sandbox control plane acting as the buyer) and the event each raises. */
export const DOCUMENT_BUYER_STATUS_MOVES = [
  { from: ['pending'], to: 'received', event: 'document.received' },
  { from: ['pending'], to: 'received_with_differences', event: 'document.received' },
  { from: ['received', 'received_with_differences'], to: 'disputed', event: 'document.disputed' },
  {
    from: ['received', 'received_with_differences'],
    to: 'approved_for_export',
    event: 'document.approved_for_export',
  },
  /** Happens by itself when every journal line of the document is exported. */
  { from: ['approved_for_export'], to: 'exported', event: null },
] as const;

/** G9: payment_status moves forward only. */
export const PAYMENT_STATUS_ORDER = ['unpaid', 'partially_paid', 'paid'] as const;

// ---------- G10-G12 accounting ----------
export const JOURNAL_GENERATION = {
  /** One debit line per expense_account, one vat line when vat > 0, one credit line for with_vat. */
  debitGrouping: 'expense_account',
  vatLineWhenVatPositive: true,
  creditNotesReverseSides: true,
  approvalEvent: 'journal_lines.approved_for_export',
} as const;

/** G12: item codes of POST /accounting/exports failures. */
export const EXPORT_FAILURE_CODES = {
  alreadyExported: { status: 409, problem: 'conflict', item: 'already_exported' },
  unknownLine: { status: 422, problem: 'validation_error', item: 'not_found' },
  notReady: { status: 422, problem: 'validation_error', item: 'not_ready' },
} as const;

// ---------- G13-G19 buyer side ----------
/**
 * Expense status moves (contract: "Transitions: not shown"), by analogy with G9 and G11: approval through the
 * sandbox control plane (blocked while a line has no expense_account), exported once its journal lines are.
 */
export const EXPENSE_STATUS_MOVES = [
  { from: ['pending_approval'], to: 'approved', event: 'expense.approved' },
  { from: ['draft', 'pending_approval'], to: 'cancelled', event: null },
  { from: ['approved'], to: 'exported', event: null },
] as const;

/** G13: the status of a created expense and the item codes of its blocking rules. */
export const EXPENSE_RULES = {
  createdStatus: 'pending_approval',
  blockingItemCodes: ['attachment_required', 'required', 'no_account_mapping'],
  updateOffered: false,
} as const;

/** G14: card transactions: record shape below, no endpoints. */
export const CARD_TRANSACTION_STATUSES = ['unmatched', 'matched', 'ignored'] as const;
export const CARD_TRANSACTION_ENDPOINTS_OFFERED = false;

/** G15: buyer purchase documents. */
export const BUYER_DOCUMENT_ENDPOINTS = {
  list: { path: '/documents', scope: 'buyer.purchases:read', plan: 'Pro' },
  get: { path: '/documents/{document_id}', scope: 'buyer.purchases:read', plan: 'Pro' },
  /** Query beyond GET /supplier/documents. */
  extraQuery: ['supplier_id', 'branch_id'],
} as const;

/** G16: scopes of the buyer reference endpoints. */
export const BUYER_REFERENCE_SCOPES = {
  '/branches': 'buyer.purchases:read',
  '/purchase-types': 'buyer.purchases:read',
  '/suppliers': 'buyer.purchases:read',
  '/suppliers/{supplier_id}': 'buyer.purchases:read',
  '/products': 'buyer.purchases:read',
  '/expense-categories': 'buyer.expenses:read',
  '/expense-accounts': 'buyer.accounting:read',
  '/account-mappings': 'buyer.accounting:read',
} as const;

/** G17: reports: scope, required and optional parameters, allowed group_by values. */
export const REPORTS = {
  '/reports/food-cost': {
    scope: 'buyer.purchases:read',
    required: ['from', 'to'],
    optional: ['purchase_type', 'branch_id'],
    groupBy: [],
    groupByMultiple: false,
  },
  '/reports/purchases': {
    scope: 'buyer.purchases:read',
    required: ['from', 'to'],
    optional: ['group_by', 'branch_id'],
    groupBy: ['supplier', 'branch', 'purchase_type'],
    groupByMultiple: false,
  },
  '/reports/expenses': {
    scope: 'buyer.expenses:read',
    required: ['from', 'to'],
    optional: ['group_by', 'branch_id'],
    groupBy: ['category', 'branch', 'purchase_type'],
    groupByMultiple: true,
  },
  '/reports/pnl': {
    scope: 'buyer.expenses:read',
    required: ['period'],
    optional: ['branch_id'],
    groupBy: [],
    groupByMultiple: false,
  },
} as const;
export const REPORT_UNSUPPORTED_GROUP_BY_CODE = 'unsupported_value';

/** G18: inventory counts. */
export const INVENTORY_COUNT_STATUSES = ['in_progress', 'completed'] as const;
export const INVENTORY_SCOPE = 'buyer.purchases:read';

/** G19: value sets not shown stay open strings; these are the values the sandbox uses. */
export const ACCOUNT_TYPES = ['supplier', 'buyer'] as const;

// ---------- G20-G33 platform ----------
/** G20: the pull-based event feed. Marked not available: the daemon does not rely on it. */
export const EVENT_FEED = {
  path: '/events',
  scope: 'events:read',
  plan: 'Enterprise',
  query: ['cursor', 'limit', 'types', 'occurred_since'],
  available: false,
} as const;

/** G21: rate limits per plan; token requests count against the same client. RateLimit-Reset is delta seconds. */
export const RATE_LIMITS_BY_PLAN = {
  supplier: { per_minute: 600, per_day: null },
  Basic: { per_minute: 60, per_day: 10_000 },
  Pro: { per_minute: 300, per_day: null },
  Enterprise: { per_minute: 1200, per_day: null },
} as const satisfies Record<string, { per_minute: number; per_day: number | null }>;

/** G22: maximum JSON request body. */
export const MAX_JSON_BODY_BYTES = 10 * 1024 * 1024;
/** G22: the problem code answered with 413 for a too-large JSON body (not in the contract's code table). */
export const GAP_ERROR_STATUS = { payload_too_large: 413 } as const;

/** G23: webhook endpoints per account, and the item code beyond. */
export const WEBHOOK_ENDPOINTS_PER_ACCOUNT = 10;
export const WEBHOOK_LIMIT_ITEM_CODE = 'limit_reached';

/** G24: failing after the first failed delivery, active again on the next success, disabled after 24 h. */
export const WEBHOOK_HEALTH = {
  failingAfterFailures: 1,
  activeAgainOnSuccess: true,
  disableAfterHours: LIMITS.webhook.disableAfterFailingHours,
  ipRangeModelled: false,
} as const;

/** G25: waits between the 8 attempts (seconds): 1m, 5m, 30m, 2h, 5h, 8h, 8h (about 23.6 h in all). */
export const WEBHOOK_RETRY_DELAYS_SECONDS = [60, 300, 1800, 7200, 18_000, 28_800, 28_800] as const;

/** G26: export jobs run on the next tick and expire 24 h after completion (download links then answer 404). */
export const EXPORT_JOB_EXPIRY_HOURS = 24;
export const EXPORT_JOB_MOVES = [
  { from: 'queued', to: 'running', when: 'next_tick' },
  { from: 'running', to: 'completed', when: 'files_written' },
  { from: 'running', to: 'failed', when: 'error' },
  { from: 'completed', to: 'expired', when: 'expiry' },
] as const;
/** G27: buyer invitations: accepted through the control plane (creates a linked buyer), expired after 14 days. */
export const INVITATION_EXPIRY_DAYS = 14;
export const INVITATION_MOVES = [
  { from: 'sent', to: 'accepted', event: 'buyer.linked' },
  { from: 'sent', to: 'expired', event: null },
] as const;
/** G28: mtls is listed as a feature but not modelled. */
export const MTLS_MODELLED = false;

/** G29: token request and access token. */
export const TOKEN_RULES = {
  scopeDefault: 'all_client_scopes',
  unknownScope: { status: 400, problem: 'validation_error', field: 'scope', item: 'unsupported_value' },
  jwtAlgorithm: 'HS256',
  claims: ['sub', 'scope', 'exp', 'iat'],
} as const;

/** G30: the schema (a key of `strict` / `lenient`) of each event type's `data`. */
export const EVENT_DATA_SCHEMAS = {
  'order.created': 'OrderEventData',
  'order.updated': 'OrderEventData',
  'order.cancelled': 'OrderEventData',
  'order.status_changed': 'OrderEventData',
  'document.received': 'DocumentEventData',
  'document.disputed': 'DocumentEventData',
  'document.approved_for_export': 'DocumentEventData',
  'document.created': 'DocumentEventData',
  'document.updated': 'DocumentEventData',
  'expense.created': 'ExpenseEventData',
  'expense.approved': 'ExpenseEventData',
  'buyer.linked': 'BuyerEventData',
  'price_list.assigned': 'PriceListAssignedEventData',
  'journal_lines.approved_for_export': 'JournalLinesApprovedEventData',
  'inventory_count.completed': 'InventoryCountEventData',
  'supplier.updated': 'SupplierEventData',
  'card_transaction.imported': 'CardTransactionImportedEventData',
  'api_client.suspended': 'ApiClientSuspendedEventData',
  'webhook.disabled': 'WebhookDisabledEventData',
  ping: 'PingEventData',
} as const satisfies Record<EventType, string>;

/** G31: the client reads and logs these headers when present. */
export const DEPRECATION_HEADERS = ['Sunset', 'Deprecation'] as const;

/** G32: validation item codes used beyond those the contract shows. */
export const VALIDATION_ITEM_CODES_CHOSEN = [
  'required',
  'too_long',
  'too_short',
  'invalid_format',
  'already_exported',
  'not_ready',
  'attachment_required',
  'no_account_mapping',
  'duplicate',
  'limit_reached',
  'out_of_range',
] as const;

/** G33: cursors are opaque base64url; an invalid one is a 422 on field `cursor`. */
export const CURSOR_RULES = {
  pattern: /^[A-Za-z0-9_-]+$/,
  invalid: { status: 422, problem: 'validation_error', field: 'cursor', item: 'invalid_format' },
} as const;

// ---------- gap schemas: request bodies and event data the contract does not show ----------

/** Resource schemas the gap schemas build on (same mode as the kit). */
export interface GapSchemaDeps {
  Totals: SharedShapes['Totals'];
  Order: z.ZodObject<z.ZodRawShape, z.core.$strip>;
  Document: z.ZodObject<z.ZodRawShape, z.core.$strip>;
  Expense: z.ZodObject<z.ZodRawShape, z.core.$strip>;
  SupplierBuyer: z.ZodObject<z.ZodRawShape, z.core.$strip>;
  InventoryCount: z.ZodObject<z.ZodRawShape, z.core.$strip>;
  Vendor: z.ZodObject<z.ZodRawShape, z.core.$strip>;
}

const NonNegativeQuantity = Quantity.refine((value) => !value.startsWith('-'), {
  message: 'must not be negative',
  ...itemCodeParams('out_of_range'),
});

/** G1–G3: confirming, acknowledging and rejecting an order. */
function orderOperationSchemas(k: SchemaKit) {
  const ConfirmOrderLine = k.object({
    line_id: Id,
    quantity_confirmed: NonNegativeQuantity.optional(),
    substitute_sku: z.string().max(LIMITS.length.sku).nullable().optional(),
    unit_price: Money.optional(),
    notes: z.string().nullable().optional(),
  });
  /** G1; an empty body (or `{}`) is a full confirmation. */
  const ConfirmOrderRequest = k.object({
    lines: z.array(ConfirmOrderLine).optional(),
    notes: z.string().nullable().optional(),
  });
  const { externalRefLength } = ORDER_OPERATIONS.acknowledge;
  /** G2 */
  const AcknowledgeOrderRequest = k.object({
    external_ref: z.string().min(externalRefLength.min).max(externalRefLength.max),
    acknowledged_at: Timestamp.optional(),
  });
  /** G3 */
  const RejectOrderRequest = k.object({
    reason: z
      .string()
      .min(ORDER_OPERATIONS.reject.reasonLength.min)
      .max(ORDER_OPERATIONS.reject.reasonLength.max),
  });
  return { ConfirmOrderLine, ConfirmOrderRequest, AcknowledgeOrderRequest, RejectOrderRequest };
}

/** G7: creating a document. */
function documentRequestSchemas(k: SchemaKit, totals: SharedShapes['Totals']) {
  const CreateDocumentLine = k.object({
    sku: z.string().min(1).max(LIMITS.length.sku),
    name: z.string().min(1),
    quantity: Quantity,
    unit: z.string().optional(),
    unit_price: Money,
    discount_pct: z.string().nullable().optional(),
    vat_exempt: z.boolean().optional(),
    total: Money,
    order_id: z.string().nullable().optional(),
    order_line_id: z.string().nullable().optional(),
  });
  /** G7; the cross-field rules are `documentRuleViolations`, attached here so both modes report them. */
  const CreateDocumentRequest = k
    .object({
      type: k.enumOf(DOCUMENT_TYPES),
      number: z.string().min(DOCUMENT_OPERATIONS.numberLength.min).max(DOCUMENT_OPERATIONS.numberLength.max),
      date: DateString,
      due_date: DateString.nullable().optional(),
      accounting_period: AccountingPeriod.optional(),
      buyer_id: Id,
      branch_id: z.string().nullable().optional(),
      purchase_type: z.string().nullable().optional(),
      order_ids: z.array(z.string()).optional(),
      currency: k.enumOf(CURRENCIES),
      totals,
      allocation_number: z.string().max(LIMITS.length.allocationNumber).nullable().optional(),
      lines: z.array(CreateDocumentLine).min(1),
      file_ids: z.array(z.string()).optional(),
      external_ref: z.string().nullable().optional(),
      notes: z.string().nullable().optional(),
    })
    .superRefine((body, ctx) => {
      // Refinements also run on partly invalid input; check only bodies whose amounts are well-formed.
      const input = ruleInputOf(body);
      if (input === undefined) return;
      for (const item of documentRuleViolations(input)) {
        ctx.addIssue({
          code: 'custom',
          path: item.path,
          message: item.message,
          ...itemCodeParams(item.code),
        });
      }
    });
  return { CreateDocumentLine, CreateDocumentRequest };
}

/** G13–G14: expenses and card transactions. */
function expenseSchemas(k: SchemaKit) {
  /** G13: body fields of POST /expenses beyond those the contract shows. */
  const CreateExpenseGapFields = {
    notes: z.string().nullable().optional(),
    external_ref: z.string().nullable().optional(),
    file_ids: z.array(z.string()).optional(),
  };
  /** G14 */
  const CardTransaction = k.object({
    id: Id,
    card_last4: z.string().regex(/^\d{4}$/, { message: 'expected the last 4 digits of the card' }),
    merchant_name: z.string(),
    amount: Money,
    currency: k.enumOf(CURRENCIES),
    transaction_date: DateString,
    branch_id: z.string().nullable(),
    status: k.enumOf(CARD_TRANSACTION_STATUSES),
    expense_id: z.string().nullable(),
    updated_at: Timestamp,
  });
  return { CreateExpenseGapFields, CardTransaction };
}

/** G30: event data; every `data` has `object` and `id`. */
function eventDataSchemas<D extends GapSchemaDeps>(k: SchemaKit, d: D) {
  const snapshot = <S extends z.ZodObject<z.ZodRawShape, z.core.$strip>, O extends string>(
    resource: S,
    object: O,
  ) => resource.extend({ object: z.literal(object) });
  const small = <O extends string, S extends z.ZodRawShape>(object: O, shape: S) =>
    k.object({ object: z.literal(object), id: Id, ...shape });
  return {
    OrderEventData: snapshot(d.Order, 'order'),
    DocumentEventData: snapshot(d.Document, 'document'),
    ExpenseEventData: snapshot(d.Expense, 'expense'),
    BuyerEventData: snapshot(d.SupplierBuyer, 'buyer'),
    InventoryCountEventData: snapshot(d.InventoryCount, 'inventory_count'),
    SupplierEventData: snapshot(d.Vendor, 'supplier'),
    PriceListAssignedEventData: small('price_list', { buyer_id: z.string() }),
    JournalLinesApprovedEventData: small('journal_lines', {
      journal_line_ids: z.array(z.string()),
      count: z.int().nonnegative(),
    }),
    CardTransactionImportedEventData: small('card_transaction', { count: z.int().nonnegative() }),
    ApiClientSuspendedEventData: small('api_client', { name: z.string() }),
    WebhookDisabledEventData: small('webhook', { url: z.string() }),
    PingEventData: small('ping', {}),
  };
}

export function defineGapSchemas<D extends GapSchemaDeps>(k: SchemaKit, d: D) {
  return {
    ...orderOperationSchemas(k),
    ...documentRequestSchemas(k, d.Totals),
    ...expenseSchemas(k),
    ...eventDataSchemas(k, d),
  };
}

export interface DocumentRuleInput {
  type: string;
  totals: { before_vat: string; vat: string; with_vat: string };
  allocation_number?: string | null | undefined;
  lines: readonly { total: string }[];
}

/** The rule input when every amount it needs is well-formed money, else undefined. */
function ruleInputOf(body: unknown): DocumentRuleInput | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { type, totals, allocation_number, lines } = body as Record<string, unknown>;
  if (typeof type !== 'string' || typeof totals !== 'object' || totals === null || !Array.isArray(lines)) {
    return undefined;
  }
  const { before_vat, vat, with_vat } = totals as Record<string, unknown>;
  const lineTotals = lines.map((line: unknown) =>
    typeof line === 'object' && line !== null ? (line as Record<string, unknown>).total : undefined,
  );
  if (!isMoney(before_vat) || !isMoney(vat) || !isMoney(with_vat) || !lineTotals.every(isMoney))
    return undefined;
  const allocation = typeof allocation_number === 'string' ? allocation_number : null;
  return {
    type,
    totals: { before_vat, vat, with_vat },
    allocation_number: allocation,
    lines: lineTotals.map((total) => ({ total })),
  };
}

export interface RuleViolation {
  path: (string | number)[];
  code: string;
  message: string;
}

/**
 * G7 cross-field rules of POST /supplier/documents: totals add up, and an allocation number is present where
 * required. Amounts must be well-formed money (throws DecimalFormatError otherwise).
 */
export function documentRuleViolations(body: DocumentRuleInput): RuleViolation[] {
  const violations: RuleViolation[] = [];
  const linesTotal = sumMoney(body.lines.map((line) => line.total));
  if (!moneyEquals(linesTotal, body.totals.before_vat)) {
    violations.push({
      path: ['totals', 'before_vat'],
      code: 'out_of_range',
      message: `must equal the sum of lines[].total (${linesTotal})`,
    });
  }
  const expectedWithVat = addMoney(body.totals.before_vat, body.totals.vat);
  if (!moneyEquals(expectedWithVat, body.totals.with_vat)) {
    violations.push({
      path: ['totals', 'with_vat'],
      code: 'out_of_range',
      message: `must equal before_vat + vat (${expectedWithVat})`,
    });
  }
  if (allocationNumberRequired(body.type, body.totals.before_vat) && !body.allocation_number) {
    violations.push({
      path: ['allocation_number'],
      code: 'required',
      message: `required for document type ${body.type} when before_vat exceeds ${ALLOCATION_NUMBER_RULE.threshold}`,
    });
  }
  return violations;
}

/** G7: whether a document of `type` with `beforeVat` needs an allocation number (credit notes by magnitude). */
export function allocationNumberRequired(type: string, beforeVat: string): boolean {
  if (!isMoney(beforeVat)) return false;
  const types: readonly string[] = ALLOCATION_NUMBER_RULE.documentTypes;
  if (!types.includes(type)) return false;
  const magnitude = beforeVat.startsWith('-') ? beforeVat.slice(1) : beforeVat;
  return compareMoney(magnitude, ALLOCATION_NUMBER_RULE.threshold) > 0;
}
