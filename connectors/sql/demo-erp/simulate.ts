import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEMO_CUSTOMER_NUMBER } from '../../../src/demo-data/index.js';
import type { Clock } from '../../../src/shared/clock.js';
import {
  divideRoundHalfUp,
  formatMoney,
  multiplyQuantityByPrice,
  parseMoney,
  roundToMoney,
  sumMoney,
} from '../../../src/shared/decimal.js';
import type { SqlExecutor, SqlRow } from '../../../src/kit/sql/driver.js';
import type { DemoErp } from './demo-erp.js';
import { simplePdf } from './pdf.js';
import { DEMO_PRICE_LIST, formatAgorot } from './seed.js';

const VAT_PERCENT = 18n;

export interface SimulateOptions {
  readonly clock: Clock;
  /** Source of randomness in [0, 1); pass a seeded one for reproducible runs. */
  readonly random?: () => number;
  /** Invoices to issue (for open orders first, then stand-alone sales). */
  readonly documents?: number;
  /** Confirmations to create for open, unconfirmed orders. */
  readonly confirmations?: number;
  /** Price and availability changes to make. */
  readonly catalogChanges?: number;
}

export interface SimulationResult {
  readonly documents: string[];
  readonly confirmations: string[];
  readonly catalogChanges: { sku: string; change: 'price' | 'availability' }[];
}

interface DocumentLineInput {
  readonly sku: string;
  readonly description: string;
  readonly quantity: string;
  readonly unit: string | null;
  readonly price: string;
  readonly vatExempt: boolean;
  readonly orderLine: number | null;
}

/**
 * What the ERP's users do during a day: invoice orders (with a PDF on disk), confirm orders, change prices and
 * stock. Each step is one transaction, like the ERP's own screens.
 */
export async function simulateErpActivity(erp: DemoErp, options: SimulateOptions): Promise<SimulationResult> {
  const random = options.random ?? Math.random;
  const today = new Date(options.clock.now()).toISOString().slice(0, 10);
  const result: SimulationResult = { documents: [], confirmations: [], catalogChanges: [] };

  for (let i = 0; i < (options.confirmations ?? 1); i++) {
    const confirmation = await erp.driver.transaction((tx) => confirmOpenOrder(tx, today, random));
    if (confirmation === null) break;
    result.confirmations.push(confirmation);
  }
  for (let i = 0; i < (options.documents ?? 1); i++) {
    result.documents.push(
      await erp.driver.transaction((tx) => issueInvoice(tx, erp.attachmentsDir, today, random)),
    );
  }
  for (let i = 0; i < (options.catalogChanges ?? 2); i++) {
    result.catalogChanges.push(await erp.driver.transaction((tx) => changeCatalog(tx, today, random)));
  }
  return result;
}

async function nextNumber(tx: SqlExecutor, sequence: string): Promise<number> {
  await tx.query('UPDATE SEQUENCES SET LASTVALUE = LASTVALUE + 1 WHERE NAME = :name', { name: sequence });
  const { rows } = await tx.query('SELECT LASTVALUE AS v FROM SEQUENCES WHERE NAME = :name', {
    name: sequence,
  });
  return Number(rows[0]?.['v']);
}

function pick<T>(items: readonly T[], random: () => number): T | undefined {
  return items[Math.floor(random() * items.length)];
}

async function confirmOpenOrder(
  tx: SqlExecutor,
  today: string,
  random: () => number,
): Promise<string | null> {
  const { rows } = await tx.query(`SELECT ORDNAME FROM ORDERS
    WHERE ORDSTATUS = 'Open' AND API_ORDER_ID IS NOT NULL
      AND ORDNAME NOT IN (SELECT ORDNAME FROM ORDCONFIRM) ORDER BY ORDID LIMIT 1`);
  const order = rows[0]?.['ORDNAME'];
  if (typeof order !== 'string') return null;
  const items = (
    await tx.query('SELECT LINE, PARTNAME, TQUANT FROM ORDERITEMS WHERE ORDNAME = :o ORDER BY LINE', {
      o: order,
    })
  ).rows;
  const partial = items.length > 1 && random() < 0.4;
  const confnum = `CF${await nextNumber(tx, 'CONF')}`;
  await tx.query(
    `INSERT INTO ORDCONFIRM (CONFNUM, ORDNAME, KIND, REASON, CREATEDAT) VALUES (:c, :o, :kind, :reason, :today)`,
    {
      c: confnum,
      o: order,
      kind: partial ? 'partial' : 'full',
      reason: partial ? 'Short on stock' : null,
      today,
    },
  );
  for (const [index, item] of items.entries()) {
    const short = partial && index === items.length - 1;
    await tx.query(
      `INSERT INTO ORDCONFIRMITEMS (CONFNUM, LINE, PARTNAME, CQUANT, REMARK) VALUES (:c, :line, :sku, :qty, :remark)`,
      {
        c: confnum,
        line: Number(item['LINE']),
        sku: String(item['PARTNAME']),
        qty: short ? '0' : String(item['TQUANT']),
        remark: short ? 'Out of stock' : null,
      },
    );
  }
  await tx.query(`UPDATE ORDERS SET ORDSTATUS = 'Confirmed' WHERE ORDNAME = :o`, { o: order });
  return confnum;
}

async function issueInvoice(
  tx: SqlExecutor,
  dir: string,
  today: string,
  random: () => number,
): Promise<string> {
  const { rows } = await tx.query(`SELECT ORDNAME, CUSTNAME, SHIPTO, PURCHTYPE FROM ORDERS
    WHERE ORDSTATUS IN ('Open', 'Confirmed') AND ORDNAME NOT IN (SELECT ORDNAME FROM DOCUMENTS WHERE ORDNAME IS NOT NULL)
    ORDER BY ORDID LIMIT 1`);
  const order = rows[0];
  const lines = order === undefined ? await standaloneLines(tx, random) : await orderLines(tx, order);
  const ivnum = `IV${await nextNumber(tx, 'DOC')}`;
  const totals = documentTotals(lines);
  const pdfPath = path.join(dir, `${ivnum}.pdf`);
  await tx.query(
    `INSERT INTO DOCUMENTS (IVNUM, DOCTYPE, IVDATE, PAYDATE, CUSTNAME, SHIPTO, PURCHTYPE, ALLOCNUM, ORDNAME, QPRICE, VAT,
       TOTPRICE, PDFPATH)
     VALUES (:iv, 'IV', :today, date(:today, '+60 days'), :cust, :shipto, :ptype, :alloc, :ord, :before, :vat, :total,
       :pdf)`,
    {
      iv: ivnum,
      today,
      cust: order === undefined ? DEMO_CUSTOMER_NUMBER : String(order['CUSTNAME']),
      shipto: order?.['SHIPTO'] === undefined ? null : (order['SHIPTO'] as string | null),
      ptype: order?.['PURCHTYPE'] === undefined ? null : (order['PURCHTYPE'] as string | null),
      // Allocation numbers are required above 5,000 ILS before VAT; the ERP obtains one from the tax authority.
      alloc:
        parseMoney(totals.beforeVat) > 500_000n
          ? String(100_000_000 + Math.floor(random() * 899_999_999))
          : null,
      ord: order === undefined ? null : String(order['ORDNAME']),
      before: totals.beforeVat,
      vat: totals.vat,
      total: totals.withVat,
      pdf: pdfPath,
    },
  );
  await insertInvoiceLines(tx, ivnum, lines, order === undefined ? null : String(order['ORDNAME']));
  if (order !== undefined) {
    await tx.query(`UPDATE ORDERS SET ORDSTATUS = 'Invoiced' WHERE ORDNAME = :o`, {
      o: String(order['ORDNAME']),
    });
  }
  await mkdir(dir, { recursive: true });
  await writeFile(pdfPath, simplePdf(pdfText(ivnum, today, lines, totals)));
  return ivnum;
}

async function insertInvoiceLines(
  tx: SqlExecutor,
  ivnum: string,
  lines: readonly DocumentLineInput[],
  orderName: string | null,
): Promise<void> {
  for (const [index, line] of lines.entries()) {
    await tx.query(
      `INSERT INTO DOCUMENTITEMS (IVNUM, LINE, PARTNAME, PDES, TQUANT, UNIT, PRICE, QPRICE, VATFREE, ORDNAME, ORDLINE)
       VALUES (:iv, :line, :sku, :des, :qty, :unit, :price, :total, :vatfree, :ord, :ordline)`,
      {
        iv: ivnum,
        line: index + 1,
        sku: line.sku,
        des: line.description,
        qty: line.quantity,
        unit: line.unit,
        price: line.price,
        total: multiplyQuantityByPrice(line.quantity, line.price),
        vatfree: line.vatExempt ? 'Y' : 'N',
        ord: orderName,
        ordline: line.orderLine,
      },
    );
  }
}

async function orderLines(tx: SqlExecutor, order: SqlRow): Promise<DocumentLineInput[]> {
  const { rows } = await tx.query(
    `SELECT LINE, PARTNAME, PDES, TQUANT, UNIT, PRICE, VATFREE FROM ORDERITEMS WHERE ORDNAME = :o ORDER BY LINE`,
    { o: String(order['ORDNAME']) },
  );
  return rows.map((row) => ({
    sku: String(row['PARTNAME']),
    description: String(row['PDES']),
    quantity: String(row['TQUANT']),
    unit: typeof row['UNIT'] === 'string' ? row['UNIT'] : null,
    price: roundToMoney(String(row['PRICE'])),
    vatExempt: row['VATFREE'] === 'Y',
    orderLine: Number(row['LINE']),
  }));
}

async function standaloneLines(tx: SqlExecutor, random: () => number): Promise<DocumentLineInput[]> {
  const { rows } = await tx.query(
    `SELECT PARTS.PARTNAME, PARTDES, UNIT, VATFREE, PRICE FROM PARTS
     JOIN PRICELIST ON PRICELIST.PARTNAME = PARTS.PARTNAME AND PLNAME = :pl WHERE INACTIVE = 'N'`,
    { pl: DEMO_PRICE_LIST },
  );
  const lines: DocumentLineInput[] = [];
  for (let i = 0; i < 3; i++) {
    const row = pick(rows, random);
    if (row === undefined || lines.some((line) => line.sku === row['PARTNAME'])) continue;
    lines.push({
      sku: String(row['PARTNAME']),
      description: String(row['PARTDES']),
      quantity: String(1 + Math.floor(random() * 9)),
      unit: String(row['UNIT']),
      price: String(row['PRICE']),
      vatExempt: row['VATFREE'] === 'Y',
      orderLine: null,
    });
  }
  return lines;
}

function documentTotals(lines: readonly DocumentLineInput[]): {
  beforeVat: string;
  vat: string;
  withVat: string;
} {
  const totals = lines.map((line) => multiplyQuantityByPrice(line.quantity, line.price));
  const taxable = lines
    .filter((line) => !line.vatExempt)
    .map((line) => multiplyQuantityByPrice(line.quantity, line.price));
  const beforeVat = sumMoney(totals);
  const vat = formatMoney(divideRoundHalfUp(parseMoney(sumMoney(taxable)) * VAT_PERCENT, 100n));
  return { beforeVat, vat, withVat: formatMoney(parseMoney(beforeVat) + parseMoney(vat)) };
}

function pdfText(
  ivnum: string,
  date: string,
  lines: readonly DocumentLineInput[],
  totals: { beforeVat: string; vat: string; withVat: string },
): string[] {
  return [
    `Tax invoice ${ivnum}`,
    `Date ${date}`,
    '',
    ...lines.map((line) => `${line.sku}  ${line.description}  ${line.quantity} x ${line.price}`),
    '',
    `Before VAT ${totals.beforeVat}   VAT ${totals.vat}   Total ${totals.withVat}`,
  ];
}

async function changeCatalog(
  tx: SqlExecutor,
  today: string,
  random: () => number,
): Promise<{ sku: string; change: 'price' | 'availability' }> {
  const { rows } = await tx.query(
    `SELECT PARTS.PARTNAME AS sku, PRICE AS price, BALANCE AS balance FROM PARTS
     JOIN PRICELIST ON PRICELIST.PARTNAME = PARTS.PARTNAME AND PLNAME = :pl
     JOIN WAREHOUSEBAL ON WAREHOUSEBAL.PARTNAME = PARTS.PARTNAME WHERE INACTIVE = 'N'`,
    { pl: DEMO_PRICE_LIST },
  );
  const row = pick(rows, random);
  if (row === undefined) throw new Error('the demo ERP has no active parts to change');
  const sku = String(row['sku']);
  if (random() < 0.6) {
    const agorot = Number(parseMoney(String(row['price'])));
    const changed = Math.max(10, Math.round(agorot * (0.95 + random() * 0.1)) + 1);
    await tx.query(
      `UPDATE PRICELIST SET PRICE = :price, VALIDFROM = :today WHERE PLNAME = :pl AND PARTNAME = :sku`,
      {
        price: formatAgorot(changed),
        today,
        pl: DEMO_PRICE_LIST,
        sku,
      },
    );
    await tx.query(`UPDATE PARTS SET UDATE = :today WHERE PARTNAME = :sku`, { today, sku });
    return { sku, change: 'price' };
  }
  const balance = String(row['balance']) === '0' ? '25' : '0';
  await tx.query(`UPDATE WAREHOUSEBAL SET BALANCE = :balance WHERE PARTNAME = :sku`, { balance, sku });
  return { sku, change: 'availability' };
}
