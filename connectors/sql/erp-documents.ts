import type { DocumentSource } from '../../src/connector-contract/capabilities.js';
import type { ErpDocument, ErpDocumentLine } from '../../src/connector-contract/documents.js';
import type { SqlDriver } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from './erp-config.js';
import { readRows, type ReaderOf } from '../../src/kit/row-reader.js';
import { bound, statementContract, type StatementContract } from './statement-contract.js';

type DocumentStatements = NonNullable<ErpStatements['documents']>;

export const documentContracts = {
  pending: statementContract('documents.pending', {
    columns: [
      'ref',
      'type',
      'number',
      'date',
      'customer_number',
      'total_before_vat',
      'vat',
      'total_with_vat',
    ],
    optionalColumns: [
      'due_date',
      'ship_to',
      'purchase_type',
      'allocation_number',
      'currency',
      'discount',
      'attachment_path',
      'api_order_id',
    ],
  }),
  lines: statementContract('documents.lines', {
    params: ['ref'],
    columns: ['line_number', 'item_code', 'description', 'quantity', 'unit_price', 'total'],
    optionalColumns: ['unit', 'discount_pct', 'vat_exempt', 'api_order_id', 'api_order_line_id'],
  }),
  mark_sent: statementContract('documents.mark_sent', { params: ['ref', 'api_document_id'] }),
} satisfies Record<keyof DocumentStatements, StatementContract>;

type HeaderReader = ReaderOf<typeof documentContracts.pending>;
type LineReader = ReaderOf<typeof documentContracts.lines>;

/** Documents the ERP issued and has not sent yet, with their lines and PDF path. */
export class SqlDocumentSource implements DocumentSource {
  constructor(
    private readonly driver: SqlDriver,
    private readonly statements: DocumentStatements,
    private readonly connectorName: string,
  ) {}

  async listPendingDocuments(): Promise<ErpDocument[]> {
    const { rows } = await this.driver.query(this.statements.pending);
    const headers = readRows(this.connectorName, documentContracts.pending, rows, readHeader);
    const documents: ErpDocument[] = [];
    for (const header of headers) {
      const result = await this.driver.query(
        this.statements.lines,
        bound(documentContracts.lines, { ref: header.ref }),
      );
      const lines = readRows(this.connectorName, documentContracts.lines, result.rows, readLine);
      const apiOrderIds = [header.apiOrderId, ...lines.map((line) => line.apiOrderId)].filter(
        (id, index, all): id is string => id !== null && all.indexOf(id) === index,
      );
      const { apiOrderId: _unused, ...rest } = header;
      documents.push({ ...rest, apiOrderIds, lines });
    }
    return documents;
  }

  async markDocumentSent(ref: string, apiDocumentId: string): Promise<void> {
    await this.driver.transaction((tx) =>
      tx.query(
        this.statements.mark_sent,
        bound(documentContracts.mark_sent, { ref, api_document_id: apiDocumentId }),
      ),
    );
  }
}

function readHeader(
  row: HeaderReader,
): Omit<ErpDocument, 'apiOrderIds' | 'lines'> & { apiOrderId: string | null } {
  return {
    ref: row.text('ref'),
    type: row.text('type'),
    number: row.text('number'),
    date: row.date('date'),
    dueDate: row.optionalDate('due_date'),
    customerNumber: row.text('customer_number'),
    shipTo: row.optionalText('ship_to'),
    purchaseType: row.optionalText('purchase_type'),
    allocationNumber: row.optionalText('allocation_number'),
    currency: row.optionalText('currency') ?? 'ILS',
    totalBeforeVat: row.decimal('total_before_vat'),
    vat: row.decimal('vat'),
    totalWithVat: row.decimal('total_with_vat'),
    discount: row.optionalDecimal('discount'),
    attachmentPath: row.optionalText('attachment_path'),
    apiOrderId: row.optionalText('api_order_id'),
  };
}

function readLine(row: LineReader): ErpDocumentLine {
  return {
    lineNumber: row.integer('line_number'),
    itemCode: row.text('item_code'),
    description: row.text('description'),
    quantity: row.decimal('quantity'),
    unit: row.optionalText('unit'),
    unitPrice: row.decimal('unit_price'),
    discountPct: row.optionalDecimal('discount_pct'),
    total: row.decimal('total'),
    vatExempt: row.boolean('vat_exempt', false),
    apiOrderId: row.optionalText('api_order_id'),
    apiOrderLineId: row.optionalText('api_order_line_id'),
  };
}
