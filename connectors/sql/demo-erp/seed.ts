import {
  BRANCH_SEEDS,
  DEMO_BUYER_NAME,
  DEMO_BUYER_TAX_ID,
  DEMO_CUSTOMER_NUMBER,
  PRODUCT_FAMILIES,
  type ProductFamily,
} from '../../../src/demo-data/index.js';
import type { SqlExecutor } from '../../../src/kit/sql/driver.js';

/**
 * Seed data aligned with the sandbox's demo supplier: the same product families and sizes, the demo buyer as
 * customer C-10042 with one ship-to per branch (ship-to code = branch code), so demo orders map without setup.
 */
export const DEMO_PRICE_LIST = 'PL-STD';

export interface DemoPart {
  readonly sku: string;
  readonly name: string;
  readonly unit: string;
  readonly packageQuantity: string;
  readonly family: string;
  readonly barcode: string;
  readonly vatExempt: boolean;
  readonly price: string;
}

/**
 * SKU of a product, the same rule the sandbox's catalog seed uses: family code and a serial counted across all
 * families, names and sizes in catalog order ("VEG-0001").
 */
export function demoSku(family: ProductFamily, serial: number): string {
  return `${family.code}-${String(serial).padStart(4, '0')}`;
}

export function demoParts(): DemoPart[] {
  const parts: DemoPart[] = [];
  let serial = 0;
  for (const family of PRODUCT_FAMILIES) {
    family.names.forEach((name, nameIndex) => {
      family.sizes.forEach((size) => {
        serial += 1;
        const agorot = Math.round((family.basePrice * size.permille) / 1000) + nameIndex * 10;
        parts.push({
          sku: demoSku(family, serial),
          name: `${name} (${size.label})`,
          unit: family.unit,
          packageQuantity: size.packageQuantity,
          family: family.category,
          barcode: ean13(`729100${String(serial).padStart(6, '0')}`),
          vatExempt: family.vatExempt,
          price: formatAgorot(agorot),
        });
      });
    });
  }
  return parts;
}

export function formatAgorot(agorot: number): string {
  const sign = agorot < 0 ? '-' : '';
  const abs = Math.abs(agorot);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

function ean13(twelveDigits: string): string {
  const sum = [...twelveDigits].reduce(
    (total, digit, index) => total + Number(digit) * (index % 2 === 0 ? 1 : 3),
    0,
  );
  return `${twelveDigits}${(10 - (sum % 10)) % 10}`;
}

export async function seedDemoErp(tx: SqlExecutor): Promise<void> {
  const customers = [
    {
      number: DEMO_CUSTOMER_NUMBER,
      name: DEMO_BUYER_NAME,
      taxId: DEMO_BUYER_TAX_ID,
      email: 'purchasing@shulchan.example',
    },
    { number: 'C-10057', name: 'Cafe Neve Tzedek', taxId: '514880231', email: 'office@cafe-nt.example' },
    { number: 'C-10063', name: 'Hotel Yam Catering', taxId: '520044871', email: 'fnb@yam-hotel.example' },
  ];
  for (const customer of customers) {
    await tx.query(
      `INSERT INTO CUSTOMERS (CUSTNAME, CUSTDES, VATNUM, EMAIL, PLNAME) VALUES (:number, :name, :tax_id, :email, :pl)`,
      {
        number: customer.number,
        name: customer.name,
        tax_id: customer.taxId,
        email: customer.email,
        pl: DEMO_PRICE_LIST,
      },
    );
  }
  for (const branch of BRANCH_SEEDS) {
    await tx.query(
      `INSERT INTO CUSTSHIPTO (CUSTNAME, SHIPTO, SHIPDES, ADDRESS) VALUES (:customer, :code, :name, :address)`,
      { customer: DEMO_CUSTOMER_NUMBER, code: branch.code, name: branch.name, address: branch.address },
    );
  }
  const parts = demoParts();
  for (const [index, part] of parts.entries()) {
    const params = {
      sku: part.sku,
      name: part.name,
      unit: part.unit,
      pack: part.packageQuantity,
      family: part.family,
      barcode: part.barcode,
      vat_free: part.vatExempt ? 'Y' : 'N',
      price: part.price,
      pl: DEMO_PRICE_LIST,
      balance: index % 17 === 5 ? '0' : String(20 + (index % 40)),
    };
    await tx.query(
      `INSERT INTO PARTS (PARTNAME, PARTDES, UNIT, PACKQTY, FAMILY, BARCODE, VATFREE, UDATE)
       VALUES (:sku, :name, :unit, :pack, :family, :barcode, :vat_free, date('now'))`,
      params,
    );
    await tx.query(`INSERT INTO PRICELIST (PLNAME, PARTNAME, PRICE) VALUES (:pl, :sku, :price)`, params);
    await tx.query(`INSERT INTO WAREHOUSEBAL (PARTNAME, BALANCE) VALUES (:sku, :balance)`, params);
  }
  await tx.query(`INSERT INTO SEQUENCES (NAME, LASTVALUE) VALUES ('DOC', 7000), ('CONF', 100)`);
}
