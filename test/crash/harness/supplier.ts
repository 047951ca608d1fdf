/**
 * The supplier daemon: orders, order-confirm, documents and catalog jobs against the demo ERP. Work appears as
 * buyers' orders (sandbox action, which also sends order.created webhooks to the daemon) and as the ERP users'
 * order confirmations, invoices and price or stock changes (simulateErpActivity on the ERP file the daemon also
 * uses).
 */
import path from 'node:path';
import { openDemoErp, simulateErpActivity, type DemoErp } from '../../../connectors/sql/demo-erp/index.js';
import { moneyEquals } from '../../../src/shared/decimal.js';
import { systemClock } from '../../../src/shared/clock.js';
import type { CrashScenario, ScenarioCheck, ScenarioSession } from './scenario.js';
import type { CrashWorld } from './world.js';

const SHIP_TO: Readonly<Record<string, string>> = {
  br_tlv: 'TLV01',
  br_hrz: 'HRZ02',
  br_jlm: 'JLM03',
  br_hfa: 'HFA04',
  br_bsh: 'BSH05',
  br_rnn: 'RNN06',
};
const ERP_PRICE_LIST = 'PL-STD';
const API_PRICE_LIST = 'pl_standard';

interface SandboxOrder {
  id: string;
  status: string;
  external_ref: string | null;
  lines: { sku: string; quantity: string; notes?: string | null }[];
}
interface SandboxDocument {
  id: string;
  number: string;
  type: string;
}
interface OrderTally {
  acknowledgements: number;
  confirmations: number;
  rejections: number;
}
type Readout = Record<string, unknown>;
/** The API status an ERP confirmation of each kind leads to. */
const CONFIRMED_STATUS: Readonly<Record<string, string>> = {
  full: 'approved',
  partial: 'partially_approved',
  reject: 'rejected',
};

function record<T>(readout: Readout, key: string): Record<string, T> {
  const value = readout[key];
  if (typeof value !== 'object' || value === null) throw new Error(`sandbox read-out has no ${key}`);
  return value as Record<string, T>;
}

export const supplierScenario: CrashScenario = {
  name: 'supplier',
  side: 'supplier',
  jobs: ['orders', 'order-confirm', 'documents', 'catalog'],
  // A confirmation sent with notes comes back as an order update, which the orders flow then applies to the ERP.
  convergeOrder: ['order-confirm', 'orders', 'documents', 'catalog'],
  requiredFlows: ['orders', 'order-confirm', 'documents', 'catalog'],
  // The checks need an order the daemon wrote into the ERP, a confirmation the ERP's users made of one (only an order
  // in the ERP can be confirmed) and a document the ERP issued.
  minimumActivity: { ordersInErp: 1, confirmationsInErp: 1, erpDocuments: 1 },
  events: ['order.created', 'order.updated', 'order.cancelled', 'document.received'],
  writeCounts: {
    orders: ['written', 'recovered', 'updated', 'cancelled', 'acknowledged'],
    'order-confirm': ['sent', 'reconciled', 'marked', 'deadLettered'],
    documents: ['documents_pending', 'files_uploaded', 'documents_created', 'documents_recovered'],
    catalog: ['products_changed', 'products_removed', 'availability_changed', 'prices_changed'],
  },
  configBody: (_dir, startFrom) =>
    [
      'connectors:',
      '  erp:',
      '    type: demo-erp',
      '    data_dir: erp',
      '    journal: false',
      'jobs:',
      '  orders:',
      '    flow: orders',
      '    connector: erp',
      "    schedule: '* * * * *'",
      '    options:',
      `      start_from: '${startFrom}'`,
      '      page_size: 5',
      '      overlap_ms: 60000',
      '  order-confirm:',
      '    flow: order-confirm',
      '    connector: erp',
      "    schedule: '* * * * *'",
      '  documents:',
      '    flow: documents',
      '    connector: erp',
      "    schedule: '* * * * *'",
      '    options:',
      '      page_size: 20',
      '  catalog:',
      '    flow: catalog',
      '    connector: erp',
      "    schedule: '* * * * *'",
      '    options:',
      '      price_lists:',
      `        ${ERP_PRICE_LIST}: ${API_PRICE_LIST}`,
      'mappings:',
      '  branches:',
      ...Object.entries(SHIP_TO).map(([branch, code]) => `    ${branch}: ${code}`),
      '',
    ].join('\n'),
  open: async (world) => openSupplierSession(world),
};

const ERP_USER_LOCK_WAIT_MS = 120_000;

async function openSupplierSession(world: CrashWorld): Promise<ScenarioSession> {
  // The same ERP file the daemon opens (data_dir erp, relative to the config file's folder). The ERP's users wait
  // for locks as long as a person would: a leader frozen (SIGSTOP) inside an ERP transaction holds the file's write
  // lock until it is woken and its commit gate rolls the transaction back, longer than SQLite's default 5 s on a
  // busy machine.
  const erp: DemoErp = await openDemoErp(path.join(world.dir, 'erp'), {
    busyTimeoutMs: ERP_USER_LOCK_WAIT_MS,
  });
  const orderIds: string[] = [];
  const query = async (sql: string): Promise<Record<string, unknown>[]> =>
    (await erp.driver.query(sql, {})).rows;
  const count = async (sql: string): Promise<number> => Number((await query(sql))[0]?.['n'] ?? 0);

  const sendOrders = async (count: number): Promise<void> => {
    const result = (await world.sandbox.control.action('buyer_send_order', { count })) as {
      order_ids: string[];
    };
    orderIds.push(...result.order_ids);
  };

  /** An order's lines as `sku x quantity (notes)`: the ERP must show the API's latest version of each order. */
  const apiOrderLines = (order: SandboxOrder | undefined): string =>
    (order?.lines ?? []).map((l) => `${l.sku}x${Number(l.quantity)}(${l.notes ?? ''})`).join(',');
  const erpOrderLines = async (erpNumber: string): Promise<string> =>
    (
      await erp.driver.query(
        `SELECT PARTNAME, TQUANT, REMARK FROM ORDERITEMS WHERE ORDNAME = :o ORDER BY LINE`,
        {
          o: erpNumber,
        },
      )
    ).rows
      .map((l) => `${String(l['PARTNAME'])}x${Number(l['TQUANT'])}(${String(l['REMARK'] ?? '')})`)
      .join(',');

  async function missing(): Promise<string[]> {
    const readout = await world.sandbox.control.state();
    const orders = record<SandboxOrder>(readout, 'orders');
    const erpOrders = new Map(
      (await query('SELECT API_ORDER_ID AS id, ORDNAME FROM ORDERS')).map((r) => [
        String(r['id']),
        String(r['ORDNAME']),
      ]),
    );
    const out: string[] = [];
    for (const id of orderIds) {
      const erpNumber = erpOrders.get(id);
      if (erpNumber === undefined) out.push(`order ${id} not in the ERP`);
      else if (orders[id]?.external_ref == null) out.push(`order ${id} not acknowledged`);
      // A confirmation's notes come back as an order update the orders flow applies to the ERP.
      else if (apiOrderLines(orders[id]) !== (await erpOrderLines(erpNumber)))
        out.push(`order ${id}: the ERP does not show its latest lines yet`);
    }
    const unconfirmed = await query('SELECT CONFNUM FROM ORDCONFIRM WHERE API_SENT_AT IS NULL');
    for (const row of unconfirmed) out.push(`confirmation ${String(row['CONFNUM'])} not sent`);
    const unsent = await query('SELECT IVNUM FROM DOCUMENTS WHERE API_DOCUMENT_ID IS NULL');
    for (const row of unsent) out.push(`document ${String(row['IVNUM'])} not sent`);
    out.push(...(await catalogDifferences(readout)));
    return out;
  }

  async function catalogDifferences(readout: Readout): Promise<string[]> {
    const prices = record<{ sku: string; price: string }[]>(readout, 'prices')[API_PRICE_LIST] ?? [];
    const apiPrice = new Map(prices.map((entry) => [entry.sku, entry.price]));
    const products = record<{ sku: string; available: boolean; deleted_at: string | null }>(
      readout,
      'products',
    );
    const apiAvailable = new Map(
      Object.values(products).map((p) => [p.sku, p.available && p.deleted_at === null]),
    );
    const out: string[] = [];
    const erpPrices = await query(
      `SELECT PRICELIST.PARTNAME AS sku, PRICE AS price FROM PRICELIST JOIN PARTS ON PARTS.PARTNAME = PRICELIST.PARTNAME
       WHERE PLNAME = '${ERP_PRICE_LIST}' AND INACTIVE = 'N'`,
    );
    for (const row of erpPrices) {
      const sku = String(row['sku']);
      const api = apiPrice.get(sku);
      if (api === undefined || !moneyEquals(api, String(row['price'])))
        out.push(`price of ${sku}: ERP ${String(row['price'])}, API ${api ?? 'none'}`);
    }
    const erpStock = await query(
      `SELECT PARTS.PARTNAME AS sku, CAST(COALESCE(BALANCE, '0') AS REAL) > 0 AS available
       FROM PARTS LEFT JOIN WAREHOUSEBAL ON WAREHOUSEBAL.PARTNAME = PARTS.PARTNAME WHERE INACTIVE = 'N'`,
    );
    for (const row of erpStock) {
      const sku = String(row['sku']);
      const want = Number(row['available']) === 1;
      if (apiAvailable.get(sku) !== want)
        out.push(`availability of ${sku}: ERP ${String(want)}, API ${String(apiAvailable.get(sku))}`);
    }
    return out;
  }

  async function check(): Promise<ScenarioCheck> {
    const readout = await world.sandbox.control.state();
    const orders = record<SandboxOrder>(readout, 'orders');
    const tallies = record<OrderTally>(readout, 'orderTallies');
    const documents = Object.values(record<SandboxDocument>(readout, 'documents'));
    const documentTallies = record<{ creations: number; duplicateAttempts: number }>(
      readout,
      'documentTallies',
    );
    const violations: string[] = [];

    // Orders: each one the buyers sent is in the ERP exactly once, acknowledged exactly once with that number.
    const erpOrders = await query('SELECT ORDNAME, API_ORDER_ID FROM ORDERS WHERE API_ORDER_ID IS NOT NULL');
    const erpByApiId = new Map<string, string[]>();
    for (const row of erpOrders) {
      const id = String(row['API_ORDER_ID']);
      erpByApiId.set(id, [...(erpByApiId.get(id) ?? []), String(row['ORDNAME'])]);
    }
    const expected = new Set(orderIds);
    const orderDigest: string[] = [];
    for (const id of orderIds) {
      const erpNumbers = erpByApiId.get(id) ?? [];
      const acknowledgements = tallies[id]?.acknowledgements ?? 0;
      if (erpNumbers.length !== 1) violations.push(`order ${id} is in the ERP ${erpNumbers.length} times`);
      if (acknowledgements !== 1) violations.push(`order ${id} was acknowledged ${acknowledgements} times`);
      if (erpNumbers.length === 1 && orders[id]?.external_ref !== erpNumbers[0])
        violations.push(
          `order ${id} acknowledged as ${String(orders[id]?.external_ref)}, ERP has ${String(erpNumbers[0])}`,
        );
      const apiLines = apiOrderLines(orders[id]);
      const erpLines = await erpOrderLines(erpNumbers[0] ?? '');
      if (apiLines !== erpLines)
        violations.push(`order ${id} lines differ: API ${apiLines}, ERP ${erpLines}`);
      orderDigest.push(erpLines);
    }
    for (const id of erpByApiId.keys()) {
      if (!expected.has(id))
        violations.push(`the ERP has order ${id}, which no buyer sent during the scenario`);
    }

    const confirmations = await checkConfirmations(orders, tallies, violations);

    // Documents: each ERP document exists once in the API (created by exactly one request) under its number.
    const erpDocuments = await query('SELECT IVNUM, API_DOCUMENT_ID FROM DOCUMENTS ORDER BY IVNUM');
    const apiByNumber = new Map<string, SandboxDocument[]>();
    for (const document of documents) {
      apiByNumber.set(document.number, [...(apiByNumber.get(document.number) ?? []), document]);
    }
    let duplicateAttempts = 0;
    for (const row of erpDocuments) {
      const number = String(row['IVNUM']);
      const inApi = apiByNumber.get(number) ?? [];
      if (inApi.length !== 1) violations.push(`document ${number} is in the API ${inApi.length} times`);
      const created = inApi[0];
      if (created === undefined) continue;
      const tally = documentTallies[created.id];
      if (tally?.creations !== 1)
        violations.push(`document ${number} was created ${tally?.creations ?? 0} times`);
      duplicateAttempts += tally?.duplicateAttempts ?? 0;
      if (String(row['API_DOCUMENT_ID']) !== created.id)
        violations.push(
          `document ${number}: ERP holds API id ${String(row['API_DOCUMENT_ID'])}, API has ${created.id}`,
        );
    }

    const catalog = await catalogDifferences(readout);
    violations.push(...catalog.slice(0, 20));
    return {
      violations,
      summary: {
        ordersSent: orderIds.length,
        ordersInErpOnce: orderIds.filter((id) => (erpByApiId.get(id) ?? []).length === 1).length,
        ordersAcknowledgedOnce: orderIds.filter((id) => tallies[id]?.acknowledgements === 1).length,
        orderLines: orderDigest,
        ...confirmations,
        erpDocuments: erpDocuments.length,
        documentsCreatedOnce: erpDocuments.filter(
          (row) => (apiByNumber.get(String(row['IVNUM'])) ?? []).length === 1,
        ).length,
        // Rejected second creates (another idempotency key for the same number): not duplicates, but reported.
        documentDuplicateAttempts: duplicateAttempts,
        catalogDifferences: catalog.length,
      },
    };
  }

  /**
   * Order confirmations: each one the ERP's users made reached the API exactly once (one confirm or reject call
   * that changed the order) and shows there as the ERP decided; orders the ERP did not confirm were not touched.
   */
  async function checkConfirmations(
    orders: Record<string, SandboxOrder>,
    tallies: Record<string, OrderTally>,
    violations: string[],
  ): Promise<Record<string, number>> {
    const rows = await query(
      `SELECT CONFNUM, KIND, API_SENT_AT, API_ORDER_ID FROM ORDCONFIRM JOIN ORDERS ON ORDERS.ORDNAME = ORDCONFIRM.ORDNAME`,
    );
    const decided = new Set<string>();
    let sentOnce = 0;
    for (const row of rows) {
      const ref = String(row['CONFNUM']);
      const orderId = String(row['API_ORDER_ID']);
      decided.add(orderId);
      const tally = tallies[orderId];
      const calls = (tally?.confirmations ?? 0) + (tally?.rejections ?? 0);
      if (calls !== 1) violations.push(`confirmation ${ref}: order ${orderId} was confirmed ${calls} times`);
      else sentOnce += 1;
      if (row['API_SENT_AT'] == null) violations.push(`confirmation ${ref} is not marked sent in the ERP`);
      const want = CONFIRMED_STATUS[String(row['KIND'])];
      const status = orders[orderId]?.status;
      if (status !== want)
        violations.push(
          `confirmation ${ref} (${String(row['KIND'])}): order ${orderId} is ${String(status)}`,
        );
    }
    for (const id of orderIds) {
      const tally = tallies[id];
      if (!decided.has(id) && (tally?.confirmations ?? 0) + (tally?.rejections ?? 0) > 0)
        violations.push(`order ${id} was confirmed in the API without an ERP confirmation`);
    }
    return { confirmationsInErp: rows.length, confirmationsSentOnce: sentOnce };
  }

  const received = new Set<string>();
  /** The buyer receives a document the daemon sent (its buyer reaction goes back to the ERP). */
  const receiveOneDocument = async (prng: { pick<T>(items: readonly T[]): T }): Promise<void> => {
    const sent = (
      await query('SELECT API_DOCUMENT_ID AS id FROM DOCUMENTS WHERE API_DOCUMENT_ID IS NOT NULL')
    )
      .map((row) => String(row['id']))
      .filter((id) => !received.has(id));
    if (sent.length === 0) return;
    const id = prng.pick(sent);
    received.add(id);
    await world.sandbox.control.action('buyer_receive_document', { document_id: id });
  };

  return {
    activity: async (prng, moment) => {
      if (moment === 'daemon-ready') {
        // Both reach the running daemon as webhooks (order.created, document.received) and start its jobs.
        if (prng.next() < 0.7) await sendOrders(prng.int(1, 2));
        if (prng.next() < 0.7) await receiveOneDocument(prng);
        return;
      }
      if (prng.next() < 0.5) await sendOrders(1);
      await simulateErpActivity(erp, {
        clock: systemClock,
        random: prng.next,
        // Up to three open orders confirmed at once, so an order-confirm run lasts long enough to be cut off.
        confirmations: prng.int(1, 3),
        documents: prng.next() < 0.6 ? 1 : 0,
        catalogChanges: prng.int(0, 2),
      });
    },
    settled: async () => (await missing()).length === 0,
    pending: async () => (await missing()).slice(0, 10).join('; '),
    progress: async () => ({
      ordersSent: orderIds.length,
      ordersInErp: await count('SELECT count(*) AS n FROM ORDERS WHERE API_ORDER_ID IS NOT NULL'),
      confirmationsInErp: await count(
        'SELECT count(*) AS n FROM ORDCONFIRM JOIN ORDERS ON ORDERS.ORDNAME = ORDCONFIRM.ORDNAME',
      ),
      confirmationsSent: await count('SELECT count(*) AS n FROM ORDCONFIRM WHERE API_SENT_AT IS NOT NULL'),
      erpDocuments: await count('SELECT count(*) AS n FROM DOCUMENTS'),
      documentsSent: await count('SELECT count(*) AS n FROM DOCUMENTS WHERE API_DOCUMENT_ID IS NOT NULL'),
    }),
    check,
    close: () => erp.driver.close(),
  };
}
