import type {
  CatalogSource,
  CustomerDirectory,
  DocumentSource,
  ReadPosition,
} from '../../src/connector-contract/capabilities.js';
import type {
  ErpAvailability,
  ErpCustomer,
  ErpPrice,
  ErpProduct,
  ProductRead,
} from '../../src/connector-contract/catalog.js';
import { completeRead } from '../../src/connector-contract/catalog.js';
import type { ErpDocument, ErpDocumentLine } from '../../src/connector-contract/documents.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { DocumentSourceConfig, OdataEntities, ReadSection } from './config.js';
import { bindTemplate, keyPredicate, type ODataValue } from './literals.js';
import {
  midnightIn,
  readFields,
  rowsOf,
  selectedProperties,
  writeEntity,
  type ReadValue,
} from './mapping.js';
import type { Entity, OdataService } from './service.js';
import { UpdateWatermark, updatedSinceFilter } from './update-watermark.js';

type Row = Record<string, ReadValue>;

/** Typed access to one mapped row, failing with the setting that should have provided a missing value. */
class Fields {
  constructor(
    private readonly row: Row,
    private readonly where: string,
    private readonly connector: string,
  ) {}

  text(field: string): string {
    const value = this.row[field];
    if (typeof value !== 'string' || value === '') {
      throw new ConnectorError(
        'connector_result_invalid',
        `${this.where}.fields.${field}: the ERP returned no value`,
        {
          connector: this.connector,
          retryable: false,
        },
      );
    }
    return value;
  }

  optional(field: string): string | null {
    const value = this.row[field];
    return typeof value === 'string' && value !== '' ? value : null;
  }

  /** A decimal amount or quantity as plain digits, whether the ERP sent a JSON number or a string (plainDecimal). */
  decimal(field: string, fallback: string | null = null): string {
    return plainDecimal(this.optional(field) ?? fallback ?? this.text(field));
  }

  optionalDecimal(field: string): string | null {
    const text = this.optional(field);
    return text === null ? null : plainDecimal(text);
  }

  /**
   * An amount in the API's money format (exactly two fraction digits): OData services send decimals as JSON
   * numbers, so 32.5 arrives as "32.5" (or as the string "32.5" under IEEE754Compatible). A price with more digits
   * (SAP keeps up to six) is rounded to cents, half away from zero (12.345 -> 12.35), never refused: one such price
   * must not fail the whole price read.
   */
  money(field: string): string {
    const text = plainDecimal(this.text(field));
    const match = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text);
    if (match === null) {
      throw new ConnectorError(
        'connector_result_invalid',
        `${this.where}.fields.${field}: the ERP returned ${text}, expected a decimal amount`,
        { connector: this.connector, retryable: false },
      );
    }
    const [, sign = '', whole = '0', fraction = ''] = match;
    const cents =
      BigInt(`${whole}${fraction.slice(0, 2).padEnd(2, '0')}`) + (Number(fraction[2] ?? '0') >= 5 ? 1n : 0n);
    const digits = cents.toString().padStart(3, '0');
    const negative = sign === '-' && cents !== 0n ? '-' : '';
    return `${negative}${digits.slice(0, -2)}.${digits.slice(-2)}`;
  }

  date(field: string): string {
    return this.text(field).slice(0, 10);
  }

  optionalDate(field: string): string | null {
    return this.optional(field)?.slice(0, 10) ?? null;
  }

  flag(field: string): boolean {
    const value = this.row[field];
    return value === true || value === 'true' || value === '1';
  }
}

async function readRows(service: OdataService, section: ReadSection, where: string): Promise<Row[]> {
  const filter =
    section.filter === undefined ? undefined : bindTemplate(section.filter, {}, `${where}.filter`);
  const select = section.select ?? selectedProperties(section.fields);
  const entities = await service.list(
    section.entity_set,
    { filter, select, orderBy: section.order_by },
    where,
  );
  return rowsOf(entities, section.fields, section.flatten);
}

export class OdataCatalogSource implements CatalogSource {
  constructor(
    private readonly service: OdataService,
    private readonly config: NonNullable<OdataEntities['catalog']>,
    private readonly connector: string,
  ) {}

  /** Complete once every page is read: a cut-short read (a cap without paging, a dropped page) throws instead. */
  async readProducts(): Promise<ProductRead> {
    const rows = await readRows(this.service, this.config.products, 'catalog.products');
    return completeRead(this.#products(rows));
  }

  #products(rows: Row[]): ErpProduct[] {
    return rows.map((row) => {
      const f = new Fields(row, 'catalog.products', this.connector);
      return {
        sku: f.text('sku'),
        name: f.text('name'),
        unit: f.optional('unit') ?? 'unit',
        packageQuantity: f.optional('package_quantity'),
        category: f.optional('category'),
        barcode: f.optional('barcode'),
        vatExempt: f.flag('vat_exempt'),
        externalRef: f.optional('external_ref'),
      };
    });
  }

  async readPrices(): Promise<ErpPrice[]> {
    if (this.config.prices === undefined) return [];
    const rows = await readRows(this.service, this.config.prices, 'catalog.prices');
    return rows.map((row) => {
      const f = new Fields(row, 'catalog.prices', this.connector);
      return {
        priceList: f.text('price_list'),
        sku: f.text('sku'),
        price: f.money('price'),
        minQuantity: f.optionalDecimal('min_quantity'),
        validFrom: f.optionalDate('valid_from'),
      };
    });
  }

  async readAvailability(): Promise<ErpAvailability[]> {
    if (this.config.availability === undefined) return [];
    const rows = await readRows(this.service, this.config.availability, 'catalog.availability');
    return rows.map((row) => {
      const f = new Fields(row, 'catalog.availability', this.connector);
      return {
        sku: f.text('sku'),
        available: f.flag('available'),
        availableUntil: f.optionalDate('available_until'),
      };
    });
  }
}

export class OdataCustomerDirectory implements CustomerDirectory {
  constructor(
    private readonly service: OdataService,
    private readonly config: ReadSection,
    private readonly connector: string,
  ) {}

  async listCustomers(): Promise<ErpCustomer[]> {
    const rows = await readRows(this.service, this.config, 'customers');
    return rows.map((row) => {
      const f = new Fields(row, 'customers', this.connector);
      return {
        customerNumber: f.text('customer_number'),
        name: f.text('name'),
        taxId: f.optional('tax_id'),
        erpRef: f.optional('erp_ref'),
        email: f.optional('email'),
        priceList: f.optional('price_list'),
      };
    });
  }
}

/**
 * A decimal as plain digits: an Edm.Decimal arrives as a JSON number, or as a string when the service writes
 * IEEE754Compatible numbers (OData JSON Format 4.0, section 3.2), and either may use an exponent (a number read from
 * JSON prints 0.0000001 as 1e-7; the OData ABNF's decimalValue allows `1.5e-7`). The digits are shifted as text, never
 * through a float. Text that is not a decimal is returned as it came, for the caller to refuse.
 */
export function plainDecimal(text: string): string {
  const match = /^([+-]?)(\d+)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (match === null) return text;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(exponent);
  const padded = point <= 0 ? `${'0'.repeat(1 - point)}${digits}` : digits.padEnd(point, '0');
  const at = Math.max(point, 1);
  const integer = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const decimals = padded.slice(at);
  const value = decimals === '' ? integer : `${integer}.${decimals}`;
  return sign === '-' ? `-${value}` : value;
}

/** Scaled-integer subtraction of two decimal strings (totals before VAT where the ERP keeps only gross and VAT). */
export function subtractDecimals(a: string, b: string): string {
  const scale = Math.max(a.split('.')[1]?.length ?? 0, b.split('.')[1]?.length ?? 0);
  const scaled = (text: string) => {
    const [whole = '0', fraction = ''] = text.split('.');
    const sign = whole.startsWith('-') ? -1n : 1n;
    return sign * BigInt(`${whole.replace('-', '')}${fraction.padEnd(scale, '0')}`);
  };
  const difference = scaled(a) - scaled(b);
  const digits = (difference < 0n ? -difference : difference).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return difference < 0n ? `-${text}` : text;
}

/** How far before the last read a later read starts, for the difference between this host's clock and the ERP's. */
const UPDATE_OVERLAP_SECONDS = 600;

/** The mark of a sent document: the API's document id and the document's own ref, `doc_1@Invoices(17)`. */
export function sentMark(apiDocumentId: string, ref: string): string {
  return `${apiDocumentId}@${ref}`;
}

function documentRef(source: DocumentSourceConfig, entity: Entity): string {
  return `${source.entity_set}${keyPredicate(source.key, entity as Record<string, ODataValue>)}`;
}

/**
 * Whether a document carries its own sent mark. An ERP that copies user fields into a document created from another
 * (SAP Business One: an invoice from a delivery note) copies the mark too; that mark names the other document, so
 * this one is still unsent. A mark without "@" was written before marks named their document and counts as sent.
 */
function markedSent(source: DocumentSourceConfig, entity: Entity): boolean {
  if (source.own_mark === undefined) return false;
  const mark = entity[source.own_mark];
  if (typeof mark !== 'string' || mark === '') return false;
  const at = mark.lastIndexOf('@');
  return at < 0 || mark.slice(at + 1) === documentRef(source, entity);
}

/**
 * Documents not sent yet, from one or more entity sets (invoices, delivery notes, credit notes). A document's ref
 * is its entity set and key predicate (`Invoices(17)`), so marking it sent needs nothing else.
 */
export class OdataDocumentSource implements DocumentSource {
  /** Offered when a source reads by update stamp (`updated`): the bound, kept in the state by the documents flow. */
  readonly readPosition: ReadPosition | undefined;

  constructor(
    private readonly service: OdataService,
    private readonly sources: readonly DocumentSourceConfig[],
    private readonly connector: string,
    /** documents_from: the date floor of every source, YYYY-MM-DD. */
    private readonly from: string | undefined = undefined,
    /** API currency code -> the company's code; read the other way round here. */
    private readonly currencies: Readonly<Record<string, string>> = {},
    /** company_timezone: the zone of the documents' update stamps. */
    private readonly timeZone: string | undefined = undefined,
    private readonly watermark = new UpdateWatermark(UPDATE_OVERLAP_SECONDS),
  ) {
    this.readPosition = sources.some((source) => source.updated !== undefined)
      ? {
          resume: (positionMs) => watermark.resume(positionMs === null ? undefined : new Date(positionMs)),
          current: () => watermark.settled()?.getTime() ?? null,
        }
      : undefined;
  }

  async listPendingDocuments(): Promise<ErpDocument[]> {
    const documents: ErpDocument[] = [];
    const since = this.watermark.begin();
    for (const [index, source] of this.sources.entries()) {
      const where = `documents.sources.${index}`;
      const filter = this.#withUpdated(
        this.#withFloor(bindTemplate(source.filter, {}, `${where}.filter`), source),
        source,
        since,
      );
      const expand = source.expand_lines ? source.lines_property : undefined;
      const select = selectedProperties(source.fields, [
        ...source.key,
        ...(expand === undefined ? [source.lines_property] : []),
        ...(source.own_mark === undefined ? [] : [source.own_mark]),
      ]);
      const query = { filter, select, expand, orderBy: source.key };
      const entities = await this.service.list(source.entity_set, query, where);
      const unsent = entities.filter((entity) => !markedSent(source, entity));
      documents.push(...unsent.map((entity) => this.#document(source, entity, where)));
    }
    this.watermark.returned(documents.map((document) => document.ref));
    return documents;
  }

  /** With the source's update stamp and an earlier complete read, only the documents changed since. */
  #withUpdated(filter: string, source: DocumentSourceConfig, since: Date | undefined): string {
    if (source.updated === undefined || since === undefined) return filter;
    return `${filter} and ${updatedSinceFilter(source.updated, since, this.timeZone)}`;
  }

  /** A document's currency as the API codes it: the company's own code mapped back (NIS -> ILS). */
  #apiCurrency(company: string | null): string {
    if (company === null) return 'ILS';
    const api = Object.entries(this.currencies).find(([, code]) => code === company)?.[0];
    return api ?? company;
  }

  /**
   * The source's filter and, with documents_from, its date field on or after that date: an Edm.Date literal, or for
   * a date-time field midnight of that date in the company's zone with its offset (the literal Priority's filter
   * takes, _restapi/5.restQuery.md "Filtering a Collection - Dates").
   */
  #withFloor(filter: string, source: DocumentSourceConfig): string {
    const date = source.fields['date'];
    if (this.from === undefined || date === undefined) return filter;
    const path = typeof date === 'string' ? date : date.path;
    const floor = source.date_floor_as === 'datetime' ? midnightIn(this.from, this.timeZone) : this.from;
    return `(${filter}) and ${path} ge ${floor}`;
  }

  async markDocumentSent(ref: string, apiDocumentId: string): Promise<void> {
    const source = this.sources.find((candidate) => ref.startsWith(`${candidate.entity_set}(`));
    if (source === undefined) {
      throw new ConnectorError(
        'connector_input_invalid',
        'documents: a ref that names no configured entity set',
        {
          connector: this.connector,
          retryable: false,
        },
      );
    }
    const changes = writeEntity(
      source.mark_sent,
      { api_document_id: apiDocumentId, ref, sent_mark: sentMark(apiDocumentId, ref) },
      'documents.mark_sent',
    );
    await this.service.patch(ref, changes, 'documents.mark_sent');
    this.watermark.marked(ref);
  }

  #document(source: DocumentSourceConfig, entity: Entity, where: string): ErpDocument {
    const f = new Fields(readFields(entity, source.fields), where, this.connector);
    const lines = Array.isArray(entity[source.lines_property])
      ? (entity[source.lines_property] as Entity[])
      : [];
    const totalWithVat = f.decimal('total_with_vat');
    const vat = f.decimal('vat', '0');
    const apiOrderId = f.optional('api_order_id');
    const documentLines = lines.map((line) => this.#line(source, line, apiOrderId, where));
    const lineOrders = documentLines.map((line) => line.apiOrderId).filter((id): id is string => id !== null);
    return {
      ref: documentRef(source, entity),
      type: source.type,
      number: f.text('number'),
      date: f.date('date'),
      dueDate: f.optionalDate('due_date'),
      customerNumber: f.text('customer_number'),
      shipTo: f.optional('ship_to'),
      purchaseType: f.optional('purchase_type'),
      allocationNumber: f.optional('allocation_number'),
      currency: this.#apiCurrency(f.optional('currency')),
      totalBeforeVat: f.optionalDecimal('total_before_vat') ?? subtractDecimals(totalWithVat, vat),
      vat,
      totalWithVat,
      discount: f.optionalDecimal('discount'),
      attachmentPath: null,
      apiOrderIds: [...new Set([...(apiOrderId === null ? [] : [apiOrderId]), ...lineOrders])],
      lines: documentLines,
    };
  }

  #line(
    source: DocumentSourceConfig,
    line: Entity,
    apiOrderId: string | null,
    where: string,
  ): ErpDocumentLine {
    const f = new Fields(readFields(line, source.line_fields), `${where}.line`, this.connector);
    return {
      lineNumber: Number(f.text('line_number')),
      itemCode: f.text('item_code'),
      description: f.optional('description') ?? '',
      quantity: f.decimal('quantity'),
      unit: f.optional('unit'),
      unitPrice: f.decimal('unit_price'),
      discountPct: f.optionalDecimal('discount_pct'),
      total: f.decimal('total'),
      vatExempt: f.flag('vat_exempt'),
      apiOrderId: f.optional('api_order_id') ?? apiOrderId,
      apiOrderLineId: f.optional('api_order_line_id'),
    };
  }
}
