import type { ConfirmationSource, DocumentReactionSink } from '../../src/connectors/capabilities.js';
import type { ConfirmationLine, DocumentReaction, ErpConfirmation } from '../../src/connectors/documents.js';
import type { SqlDriver } from './driver.js';
import type { ErpStatements } from './erp-config.js';
import { readRows, type RowReader } from '../../src/kit/row-reader.js';

type ReactionStatements = NonNullable<ErpStatements['reactions']>;
type ConfirmationStatements = NonNullable<ErpStatements['confirmations']>;

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
      await tx.query(updateStatus, params);
      if (clear !== undefined) await tx.query(clear, params);
      if (insert === undefined) return;
      for (const difference of reaction.differences) {
        await tx.query(insert, {
          ...params,
          line_ref: difference.lineRef,
          item_code: difference.itemCode,
          field: difference.field,
          issued: difference.issued,
          received: difference.received,
          note: difference.note,
        });
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
    const headers = readRows(this.connectorName, 'confirmations.pending', rows, (row) => readHeader(row));
    const confirmations: ErpConfirmation[] = [];
    for (const header of headers) {
      const result = await this.driver.query(this.statements.lines, { ref: header.ref });
      const lines = readRows(this.connectorName, 'confirmations.lines', result.rows, readLine);
      confirmations.push({ ...header, lines });
    }
    return confirmations;
  }

  async markConfirmationSent(ref: string): Promise<void> {
    await this.driver.query(this.statements.mark_sent, { ref });
  }
}

function readHeader(row: RowReader): Omit<ErpConfirmation, 'lines'> {
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

function readLine(row: RowReader): ConfirmationLine {
  return {
    apiLineId: row.optionalText('api_line_id'),
    itemCode: row.text('item_code'),
    quantityConfirmed: row.decimal('quantity_confirmed'),
    substituteItemCode: row.optionalText('substitute_item_code'),
    notes: row.optionalText('notes'),
  };
}
