import type { ConfirmationSource, DocumentReactionSink } from '../../src/connector-contract/capabilities.js';
import type {
  ConfirmationLine,
  DocumentReaction,
  ErpConfirmation,
} from '../../src/connector-contract/documents.js';
import type { SqlDriver } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from './erp-config.js';
import { readRows, type ReaderOf } from '../../src/kit/row-reader.js';
import { bound, statementContract, type StatementContract } from './statement-contract.js';

type ReactionStatements = NonNullable<ErpStatements['reactions']>;
type ConfirmationStatements = NonNullable<ErpStatements['confirmations']>;

const REACTION_PARAMS = [
  'api_document_id',
  'document_type',
  'document_number',
  'buyer_status',
  'occurred_at',
] as const;

export const reactionContracts = {
  update_status: statementContract('reactions.update_status', { params: REACTION_PARAMS }),
  clear_differences: statementContract('reactions.clear_differences', { params: REACTION_PARAMS }),
  insert_difference: statementContract('reactions.insert_difference', {
    params: [...REACTION_PARAMS, 'line_ref', 'item_code', 'field', 'issued', 'received', 'note'],
  }),
} satisfies Record<keyof ReactionStatements, StatementContract>;

export const confirmationContracts = {
  pending: statementContract('confirmations.pending', {
    columns: ['ref', 'api_order_id', 'kind'],
    optionalColumns: ['erp_order_number', 'reason'],
  }),
  lines: statementContract('confirmations.lines', {
    params: ['ref'],
    columns: ['item_code', 'quantity_confirmed'],
    optionalColumns: ['api_line_id', 'substitute_item_code', 'notes'],
  }),
  mark_sent: statementContract('confirmations.mark_sent', { params: ['ref'] }),
} satisfies Record<keyof ConfirmationStatements, StatementContract>;

/** Writes buyer reactions back to the ERP in one transaction; differences are replaced, so re-applying is safe. */
export class SqlDocumentReactionSink implements DocumentReactionSink {
  constructor(
    private readonly driver: SqlDriver,
    private readonly statements: ReactionStatements,
  ) {}

  writeDocumentReaction(reaction: DocumentReaction): Promise<void> {
    const params = {
      api_document_id: reaction.apiDocumentId,
      document_type: reaction.documentType,
      document_number: reaction.documentNumber,
      buyer_status: reaction.buyerStatus,
      occurred_at: reaction.occurredAt,
    };
    const {
      update_status: updateStatus,
      clear_differences: clear,
      insert_difference: insert,
    } = this.statements;
    return this.driver.transaction(async (tx) => {
      await tx.query(updateStatus, bound(reactionContracts.update_status, params));
      if (clear !== undefined) await tx.query(clear, bound(reactionContracts.clear_differences, params));
      if (insert === undefined) return;
      for (const difference of reaction.differences) {
        await tx.query(
          insert,
          bound(reactionContracts.insert_difference, {
            ...params,
            line_ref: difference.lineRef,
            item_code: difference.itemCode,
            field: difference.field,
            issued: difference.issued,
            received: difference.received,
            note: difference.note,
          }),
        );
      }
    });
  }
}

const KINDS: readonly ErpConfirmation['kind'][] = ['full', 'partial', 'reject'];

export class SqlConfirmationSource implements ConfirmationSource {
  constructor(
    private readonly driver: SqlDriver,
    private readonly statements: ConfirmationStatements,
    private readonly connectorName: string,
  ) {}

  async listPendingConfirmations(): Promise<ErpConfirmation[]> {
    const { rows } = await this.driver.query(this.statements.pending);
    const headers = readRows(this.connectorName, confirmationContracts.pending, rows, readHeader);
    const confirmations: ErpConfirmation[] = [];
    for (const header of headers) {
      const result = await this.driver.query(
        this.statements.lines,
        bound(confirmationContracts.lines, { ref: header.ref }),
      );
      const lines = readRows(this.connectorName, confirmationContracts.lines, result.rows, readLine);
      confirmations.push({ ...header, lines });
    }
    return confirmations;
  }

  async markConfirmationSent(ref: string): Promise<void> {
    await this.driver.transaction((tx) =>
      tx.query(this.statements.mark_sent, bound(confirmationContracts.mark_sent, { ref })),
    );
  }
}

function readHeader(row: ReaderOf<typeof confirmationContracts.pending>): Omit<ErpConfirmation, 'lines'> {
  const kind = row.text('kind').toLowerCase();
  const known = KINDS.find((value) => value === kind);
  if (known === undefined) {
    throw new Error(
      `statement confirmations.pending returned kind "${kind}"; expected full, partial or reject`,
    );
  }
  return {
    ref: row.text('ref'),
    apiOrderId: row.text('api_order_id'),
    erpOrderNumber: row.optionalText('erp_order_number'),
    kind: known,
    reason: row.optionalText('reason'),
  };
}

function readLine(row: ReaderOf<typeof confirmationContracts.lines>): ConfirmationLine {
  return {
    apiLineId: row.optionalText('api_line_id'),
    itemCode: row.text('item_code'),
    quantityConfirmed: row.decimal('quantity_confirmed'),
    substituteItemCode: row.optionalText('substitute_item_code'),
    notes: row.optionalText('notes'),
  };
}
