import type { ErpAvailability, ErpCustomer, ErpPrice, ProductRead } from './catalog.js';
import type { DocumentReaction, ErpConfirmation, ErpDocument } from './documents.js';
import type { SourceExpense } from './expenses.js';
import type { JournalBatch, PreparedEntries, WriteResult } from './journal.js';
import type { JournalReadBack } from './journal-read.js';
import type { MirrorRow, MirrorTableSpec } from './mirror.js';
import type {
  ErpOrder,
  ErpOrderRef,
  OrderCancelResult,
  OrderUpdateResult,
  OrderWriteResult,
} from './orders.js';
import type { SalesBatch } from './sales.js';

/**
 * Capability contracts. Each is small and typed in neutral ERP/accounting shapes; flows map API records to and
 * from them. Connectors never touch the state store or the API. Every write is idempotent by its business key
 * (batch key, API order id), stored in the target in the same transaction as the write.
 */

export interface AccountingWriter {
  /**
   * Writes the whole batch atomically, or reports `already_written` when the batch key is already present.
   * `prepared`: what this writer's prepareEntries returned for the batch's documents, in order; a writer reuses
   * only pieces it can match to the batch's entries and works from the entries otherwise.
   */
  writeJournalBatch(batch: JournalBatch, prepared?: readonly PreparedEntries[]): Promise<WriteResult>;
  hasBatch(batchKey: string): Promise<boolean>;
  /**
   * For dry runs: throws what a run would throw about the target itself before writing anything (a table or schema
   * it cannot write to), naming the setting and the fix; changes nothing. Writers that cannot tell leave it out.
   */
  checkTarget?(): Promise<void>;
  /** Reads the books back for reconciliation; left out by a writer whose target cannot be read. */
  readonly readBack?: JournalReadBack;
  /** Offered by a writer whose target can go missing or be swapped unnoticed (a folder on a share). */
  readonly targetMark?: TargetMark;
}

/**
 * What a writer keeps outside its target to recognise it later: a mark of what it wrote there. Connectors never
 * touch the state, so the journal export keeps the mark, hands it back before every run and saves it with every
 * batch written; a target that falls short of it (gone, emptied, restored from an older copy) fails the run before
 * anything is written, instead of being started afresh without a word.
 */
export interface TargetMark {
  /** Before a run: the mark the state holds, null for none. Throws a ConnectorError saying what is wrong and what to do. */
  verify(saved: string | null): Promise<void>;
  /** The mark of what the target holds now (after verify and after each batch written); null while nothing. */
  current(): string | null;
}

export interface OrderSink {
  /** Header and lines in one transaction; a second call with the same apiOrderId writes nothing. */
  writeOrder(order: ErpOrder): Promise<OrderWriteResult>;
  /** Replaces header fields and lines of an order already written. */
  applyOrderUpdate(order: ErpOrder): Promise<OrderUpdateResult>;
  cancelOrder(apiOrderId: string, reason: string): Promise<OrderCancelResult>;
  findOrder(apiOrderId: string): Promise<ErpOrderRef | null>;
  /**
   * For dry runs: everything writeOrder would do short of changing data (reads run for real, writes prepared and
   * their parameters bound). Throws what writeOrder would throw for the order. Sinks that cannot tell leave it out.
   */
  checkOrderWrite?(order: ErpOrder): Promise<void>;
}

export interface DocumentSource {
  listPendingDocuments(): Promise<ErpDocument[]>;
  markDocumentSent(ref: string, apiDocumentId: string): Promise<void>;
  /**
   * Offered by a source that asks its system only for documents changed since its last complete read: where it
   * stands. Connectors never touch the state, so the documents flow keeps it there (a cursor of the job), hands it
   * back before every read and saves it after the run, and a restart does not read every document again.
   */
  readonly readPosition?: ReadPosition | undefined;
}

/** Where an incremental document read stands, as milliseconds since the epoch; null for "from the beginning". */
export interface ReadPosition {
  /** Before a read: the position the state holds. */
  resume(positionMs: number | null): void;
  /** After the run: the position the next read starts from (it moves only once every document read was marked). */
  current(): number | null;
}

/** A source file that could not be read as a whole: set aside by the source, filed by the flow as a dead letter. */
export interface RejectedFile {
  /** The file's name as it was dropped. */
  readonly file: string;
  /** Where the source moved it; in a dry run, where it would have moved it (the file stays where it is). */
  readonly movedTo: string;
  /** The first line at fault (1 is the header), null when the file as such is unreadable. */
  readonly line: number | null;
  readonly reason: string;
}

/** How a source is read. */
export interface ListOptions {
  /** A dry run: the source is only read; a file it cannot read is reported but not set aside. */
  readonly dryRun?: boolean;
}

/** Expenses kept outside the API (a back-office database, a drop folder of receipts) and not yet sent. */
export interface ExpenseSource {
  listPendingExpenses(options?: ListOptions): Promise<SourceExpense[]>;
  /** The files the last listPendingExpenses rejected whole (sources of files only). */
  rejectedFiles?(): readonly RejectedFile[];
  /** Records the API's expense id in the source; calling it again with the same id changes nothing. */
  markExpenseSent(ref: string, apiExpenseId: string): Promise<void>;
}

export interface DocumentReactionSink {
  /** Idempotent: writing the same reaction twice leaves the same state. */
  writeDocumentReaction(reaction: DocumentReaction): Promise<void>;
}

export interface ConfirmationSource {
  listPendingConfirmations(): Promise<ErpConfirmation[]>;
  markConfirmationSent(ref: string): Promise<void>;
}

/** Full snapshots: ERPs rarely keep reliable change dates, the core diffs them. */
export interface CatalogSource {
  /** The products, and whether the read saw all of them: the flow removes products only after a complete read. */
  readProducts(): Promise<ProductRead>;
  readPrices(): Promise<ErpPrice[]>;
  readAvailability(): Promise<ErpAvailability[]>;
}

export interface CustomerDirectory {
  listCustomers(): Promise<ErpCustomer[]>;
}

export interface SalesSource {
  listPendingSales(options?: ListOptions): Promise<SalesBatch[]>;
  /** The files the last listPendingSales rejected whole (sources of files only). */
  rejectedFiles?(): readonly RejectedFile[];
  markSalesBatch(ref: string, outcome: 'done' | 'failed'): Promise<void>;
}

export interface MirrorSink {
  /** Creates the table when missing; adds nothing to an existing one. */
  ensureTable(spec: MirrorTableSpec): Promise<void>;
  /** Upserts by `id` in one transaction. */
  upsertRows(spec: MirrorTableSpec, rows: readonly MirrorRow[]): Promise<number>;
}

export interface CapabilityMap {
  accountingWriter: AccountingWriter;
  orderSink: OrderSink;
  documentSource: DocumentSource;
  documentReactionSink: DocumentReactionSink;
  expenseSource: ExpenseSource;
  confirmationSource: ConfirmationSource;
  catalogSource: CatalogSource;
  customerDirectory: CustomerDirectory;
  salesSource: SalesSource;
  mirrorSink: MirrorSink;
}

export type CapabilityName = keyof CapabilityMap;

export const capabilityNames: readonly CapabilityName[] = [
  'accountingWriter',
  'orderSink',
  'documentSource',
  'documentReactionSink',
  'expenseSource',
  'confirmationSource',
  'catalogSource',
  'customerDirectory',
  'salesSource',
  'mirrorSink',
];
