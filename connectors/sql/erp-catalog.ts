import type { CatalogSource, CustomerDirectory } from '../../src/connector-contract/capabilities.js';
import type {
  ErpAvailability,
  ErpCustomer,
  ErpPrice,
  ProductRead,
} from '../../src/connector-contract/catalog.js';
import { completeRead, partialRead } from '../../src/connector-contract/catalog.js';
import type { SqlDriver, SqlExecutor } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from './erp-config.js';
import { readRows } from '../../src/kit/row-reader.js';
import { statementContract, type StatementContract } from './statement-contract.js';

type CatalogStatements = NonNullable<ErpStatements['catalog']>;
type CustomerStatements = NonNullable<ErpStatements['customers']>;

export const catalogContracts = {
  products: statementContract('catalog.products', {
    columns: ['sku', 'name', 'unit'],
    optionalColumns: ['package_quantity', 'category', 'barcode', 'vat_exempt', 'external_ref'],
  }),
  products_count: statementContract('catalog.products_count', { columns: ['product_count'] }),
  prices: statementContract('catalog.prices', {
    columns: ['price_list', 'sku', 'price'],
    optionalColumns: ['min_quantity', 'valid_from'],
  }),
  availability: statementContract('catalog.availability', {
    columns: ['sku'],
    optionalColumns: ['available', 'available_until'],
  }),
} satisfies Record<keyof CatalogStatements, StatementContract>;

export const customerContracts = {
  list: statementContract('customers.list', {
    columns: ['customer_number', 'name'],
    optionalColumns: ['tax_id', 'erp_ref', 'email', 'price_list'],
  }),
} satisfies Record<keyof CustomerStatements, StatementContract>;

/** Full catalog snapshots; a statement left out of the config reads as an empty snapshot of that kind. */
export class SqlCatalogSource implements CatalogSource {
  constructor(
    private readonly driver: SqlDriver,
    private readonly statements: CatalogStatements,
    private readonly connectorName: string,
  ) {}

  /**
   * Complete unless the optional products_count statement, read in the same transaction, counts more products
   * than the products statement returned.
   */
  async readProducts(): Promise<ProductRead> {
    const countSql = this.statements.products_count;
    const { rows, expected } =
      countSql === undefined
        ? { rows: (await this.driver.query(this.statements.products)).rows, expected: undefined }
        : await this.driver.transaction(async (tx) => ({
            rows: (await tx.query(this.statements.products)).rows,
            expected: await this.#expectedCount(tx, countSql),
          }));
    const products = readRows(this.connectorName, catalogContracts.products, rows, (row) => ({
      sku: row.text('sku'),
      name: row.text('name'),
      unit: row.text('unit'),
      packageQuantity: row.optionalDecimal('package_quantity'),
      category: row.optionalText('category'),
      barcode: row.optionalText('barcode'),
      vatExempt: row.boolean('vat_exempt', false),
      externalRef: row.optionalText('external_ref'),
    }));
    if (expected === undefined || products.length >= expected) return completeRead(products);
    return partialRead(
      products,
      `catalog.products returned ${products.length} rows but catalog.products_count counts ${expected}: ` +
        'remove any TOP/LIMIT or row cap from the products statement, or make both count the same items',
    );
  }

  async #expectedCount(tx: SqlExecutor, sql: string): Promise<number> {
    const { rows } = await tx.query(sql);
    const [count] = readRows(this.connectorName, catalogContracts.products_count, rows, (row) =>
      row.integer('product_count'),
    );
    return count ?? 0;
  }

  async readPrices(): Promise<ErpPrice[]> {
    if (this.statements.prices === undefined) return [];
    const { rows } = await this.driver.query(this.statements.prices);
    return readRows(this.connectorName, catalogContracts.prices, rows, (row) => ({
      priceList: row.text('price_list'),
      sku: row.text('sku'),
      price: row.decimal('price'),
      minQuantity: row.optionalDecimal('min_quantity'),
      validFrom: row.optionalDate('valid_from'),
    }));
  }

  async readAvailability(): Promise<ErpAvailability[]> {
    if (this.statements.availability === undefined) return [];
    const { rows } = await this.driver.query(this.statements.availability);
    return readRows(this.connectorName, catalogContracts.availability, rows, (row) => ({
      sku: row.text('sku'),
      available: row.boolean('available', true),
      availableUntil: row.optionalDate('available_until'),
    }));
  }
}

export class SqlCustomerDirectory implements CustomerDirectory {
  constructor(
    private readonly driver: SqlDriver,
    private readonly statements: CustomerStatements,
    private readonly connectorName: string,
  ) {}

  async listCustomers(): Promise<ErpCustomer[]> {
    const { rows } = await this.driver.query(this.statements.list);
    return readRows(this.connectorName, customerContracts.list, rows, (row) => ({
      customerNumber: row.text('customer_number'),
      name: row.text('name'),
      taxId: row.optionalText('tax_id'),
      erpRef: row.optionalText('erp_ref'),
      email: row.optionalText('email'),
      priceList: row.optionalText('price_list'),
    }));
  }
}
