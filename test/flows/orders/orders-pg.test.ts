import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlOrderSink } from '../../../connectors/sql/erp-orders.js';
import { PgDriver } from '../../../src/kit/sql/pg-driver.js';
import type { Connector } from '../../../src/connector-contract/index.js';
import { ordersFlow } from '../../../src/flows/orders/index.js';
import { OrderMapper } from '../../../src/flows/orders/mapping.js';
import { ordersOptionsSchema } from '../../../src/flows/orders/options.js';
import { createFixtureSchema, fixtureStatements } from '../../connectors/sql-fixture.js';
import { requireServices, serviceProbe } from '../../connectors/services.js';
import { buyerSendsOrders, openOrdersWorld, type OrdersWorld } from './harness.js';

/** The orders flow into a PostgreSQL ERP through the `sql` connector's order statements. */
const url = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
const schema = `ss_orders_${process.pid}_${randomBytes(4).toString('hex')}`;

const probe = await serviceProbe('PostgreSQL', url, async () => {
  const admin = new PgDriver({ url, poolSize: 1 });
  try {
    await admin.query('SELECT 1 AS ok');
  } finally {
    await admin.close();
  }
});
requireServices(probe);

describe.skipIf(!probe.available)(
  `orders flow on PostgreSQL${probe.available ? '' : ` (${probe.reason})`}`,
  () => {
    let world: OrdersWorld;
    let driver: PgDriver;
    let connector: Connector;
    const startFrom = new Date().toISOString();

    beforeAll(async () => {
      const admin = new PgDriver({ url, poolSize: 1 });
      await admin.query(`CREATE SCHEMA ${schema}`);
      await admin.close();
      driver = new PgDriver({ url, schema });
      await createFixtureSchema(driver);
      const statements = fixtureStatements.orders;
      if (statements === undefined) throw new Error('the fixture has no order statements');
      connector = {
        type: 'sql',
        capabilities: { orderSink: new SqlOrderSink(driver, statements, 'erp') },
        check: () => Promise.resolve([]),
        close: () => Promise.resolve(),
      };
      world = await openOrdersWorld();
    });

    afterAll(async () => {
      await world.close();
      await driver.close();
      const admin = new PgDriver({ url, poolSize: 1 });
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.close();
    });

    it('writes new orders once, adopts one written before a crash, and acknowledges each once', async () => {
      const ids = await buyerSendsOrders(world.sandbox, { count: 3 });
      const [first] = ids;
      if (first === undefined) throw new Error('no order sent');
      const options = ordersOptionsSchema.parse({ start_from: startFrom });
      // An earlier run wrote this order and died before recording it or acknowledging it.
      const mapper = new OrderMapper(options, {}, () => Promise.resolve(null));
      const mapped = await mapper.map(await world.api.orders.get(first));
      if (!mapped.ok) throw new Error(mapped.problems.join('; '));
      await connector.capabilities.orderSink?.writeOrder(mapped.order);

      const deps = { ...world.deps({}), connector: () => connector };
      const job = ordersFlow.create({ name: 'orders', connector: 'erp', options }, deps);
      const result = await world.run(job);
      expect(result.outcome).toBe('ok');
      expect(result.counts['written']).toBe(2);
      expect(result.counts['recovered']).toBe(1);
      await world.run(job);

      const { rows } = await driver.query(
        'SELECT api_order_id, erp_order_number, (SELECT COUNT(*) FROM t_order_line l WHERE l.erp_order_number = h.erp_order_number) AS lines FROM t_order_header h',
      );
      const tallies = await world.tallies();
      expect(rows.map((row) => row['api_order_id']).sort()).toEqual([...ids].sort());
      for (const row of rows) {
        const id = String(row['api_order_id']);
        const order = await world.api.orders.get(id);
        expect(order.external_ref).toBe(String(row['erp_order_number']));
        expect(Number(row['lines'])).toBe(order.lines?.length);
        expect(tallies[id]?.acknowledgements).toBe(1);
      }
    });
  },
);
