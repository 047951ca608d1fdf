import { existsSync } from 'node:fs';
import path from 'node:path';
import type {
  CatalogSource,
  ConfirmationSource,
  CustomerDirectory,
  DocumentSource,
} from '../../src/connector-contract/capabilities.js';
import type {
  ErpAvailability,
  ErpCustomer,
  ErpPrice,
  ProductRead,
} from '../../src/connector-contract/catalog.js';
import { completeRead, partialRead } from '../../src/connector-contract/catalog.js';
import type { ErpConfirmation, ErpDocument } from '../../src/connector-contract/documents.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import { readRows, RowReader } from '../../src/kit/row-reader.js';
import type { CsvErpConfig } from './config.js';
import { listCsvFiles, moveToDone, readRecords, readSnapshotFile, type FileOwner } from './files.js';

const KINDS: readonly ErpConfirmation['kind'][] = ['full', 'partial', 'reject'];

/**
 * What a file-exchange ERP exports: full snapshots (products.csv, prices.csv, availability.csv, customers.csv)
 * and one file per document or confirmation, moved to done/ once sent. Column names are the `sql` connector's
 * result columns.
 */
export class CsvInbound implements CatalogSource, CustomerDirectory, DocumentSource, ConfirmationSource {
  constructor(
    private readonly config: CsvErpConfig,
    private readonly inDir: string,
    private readonly connectorName: string,
  ) {}

  /** Partial when products.csv ends mid-line: the ERP was still writing it, or the copy was cut short. */
  async readProducts(): Promise<ProductRead> {
    const file = path.join(this.inDir, 'products.csv');
    const read = await readSnapshotFile(file, this.#owner, this.config.separator);
    if (read === null) throw this.#missing('products.csv');
    const products = readRows(this.connectorName, 'products.csv', read.records, (row) => ({
      sku: row.text('sku'),
      name: row.text('name'),
      unit: row.text('unit'),
      packageQuantity: row.optionalDecimal('package_quantity'),
      category: row.optionalText('category'),
      barcode: row.optionalText('barcode'),
      vatExempt: row.boolean('vat_exempt', false),
      externalRef: row.optionalText('external_ref'),
    }));
    if (!read.endsMidLine) return completeRead(products);
    return partialRead(
      products,
      `${file} ends in the middle of a line, so the export was cut short or is still being written: have the ERP ` +
        'write the file under another name and rename it when complete',
    );
  }

  async readPrices(): Promise<ErpPrice[]> {
    return readRows(this.connectorName, 'prices.csv', await this.#snapshot('prices.csv', true), (row) => ({
      priceList: row.text('price_list'),
      sku: row.text('sku'),
      price: row.decimal('price'),
      minQuantity: row.optionalDecimal('min_quantity'),
      validFrom: row.optionalDate('valid_from'),
    }));
  }

  async readAvailability(): Promise<ErpAvailability[]> {
    const rows = await this.#snapshot('availability.csv', true);
    return readRows(this.connectorName, 'availability.csv', rows, (row) => ({
      sku: row.text('sku'),
      available: row.boolean('available', true),
      availableUntil: row.optionalDate('available_until'),
    }));
  }

  async listCustomers(): Promise<ErpCustomer[]> {
    return readRows(this.connectorName, 'customers.csv', await this.#snapshot('customers.csv'), (row) => ({
      customerNumber: row.text('customer_number'),
      name: row.text('name'),
      taxId: row.optionalText('tax_id'),
      erpRef: row.optionalText('erp_ref'),
      email: row.optionalText('email'),
      priceList: row.optionalText('price_list'),
    }));
  }

  async listPendingDocuments(): Promise<ErpDocument[]> {
    const dir = path.join(this.inDir, 'documents');
    const documents: ErpDocument[] = [];
    for (const name of await listCsvFiles(dir)) {
      const rows = (await readRecords(path.join(dir, name), this.#owner, this.config.separator)) ?? [];
      const first = rows[0];
      if (first === undefined) continue;
      const header = new RowReader(this.connectorName, `documents/${name}`, first);
      const lines = readRows(this.connectorName, `documents/${name}`, rows, (row) => ({
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
      }));
      const pdf = path.join(dir, `${name.slice(0, -4)}.pdf`);
      documents.push({
        ref: name,
        type: header.text('type'),
        number: header.text('number'),
        date: header.date('date'),
        dueDate: header.optionalDate('due_date'),
        customerNumber: header.text('customer_number'),
        shipTo: header.optionalText('ship_to'),
        purchaseType: header.optionalText('purchase_type'),
        allocationNumber: header.optionalText('allocation_number'),
        currency: header.optionalText('currency') ?? 'ILS',
        totalBeforeVat: header.decimal('total_before_vat'),
        vat: header.decimal('vat'),
        totalWithVat: header.decimal('total_with_vat'),
        discount: header.optionalDecimal('discount'),
        attachmentPath: existsSync(pdf) ? pdf : null,
        apiOrderIds: [
          ...new Set(lines.map((line) => line.apiOrderId).filter((id): id is string => id !== null)),
        ],
        lines,
      });
    }
    return documents;
  }

  async markDocumentSent(ref: string): Promise<void> {
    await moveToDone(path.join(this.inDir, 'documents'), ref);
  }

  async listPendingConfirmations(): Promise<ErpConfirmation[]> {
    const dir = path.join(this.inDir, 'confirmations');
    const confirmations: ErpConfirmation[] = [];
    for (const name of await listCsvFiles(dir)) {
      const rows = (await readRecords(path.join(dir, name), this.#owner, this.config.separator)) ?? [];
      const first = rows[0];
      if (first === undefined) continue;
      const header = new RowReader(this.connectorName, `confirmations/${name}`, first);
      const kind = KINDS.find((value) => value === header.text('kind').toLowerCase());
      if (kind === undefined) throw new Error(`confirmations/${name}: kind must be full, partial or reject`);
      confirmations.push({
        ref: name,
        apiOrderId: header.text('api_order_id'),
        erpOrderNumber: header.optionalText('erp_order_number'),
        kind,
        reason: header.optionalText('reason'),
        lines: readRows(this.connectorName, `confirmations/${name}`, rows.filter(hasItem), (row) => ({
          apiLineId: row.optionalText('api_line_id'),
          itemCode: row.text('item_code'),
          quantityConfirmed: row.decimal('quantity_confirmed'),
          substituteItemCode: row.optionalText('substitute_item_code'),
          notes: row.optionalText('notes'),
        })),
      });
    }
    return confirmations;
  }

  async markConfirmationSent(ref: string): Promise<void> {
    await moveToDone(path.join(this.inDir, 'confirmations'), ref);
  }

  /** A missing snapshot file is an error (an empty catalog must be explicit), unless the file is optional. */
  async #snapshot(name: string, optional = false): Promise<Record<string, string>[]> {
    const rows = await readRecords(path.join(this.inDir, name), this.#owner, this.config.separator);
    if (rows !== null) return rows;
    if (optional) return [];
    throw this.#missing(name);
  }

  get #owner(): FileOwner {
    return { connector: this.connectorName, encoding: this.config.encoding };
  }

  #missing(name: string): ConnectorError {
    return new ConnectorError(
      'connector_input_invalid',
      `${name} is missing in the ERP export folder ${this.inDir}`,
      {
        connector: this.connectorName,
        retryable: true,
      },
    );
  }
}

/** A rejection may come as a single row without lines. */
function hasItem(row: Record<string, string>): boolean {
  return (row['item_code'] ?? '').trim() !== '';
}
