import { afterEach, describe, expect, it } from 'vitest';
import { ConnectorError } from '../../../src/connector-contract/errors.js';
import { openOdata, order, type OdataFixture } from './fixture.js';

/**
 * What the real services do to a client, injected by the emulator: sessions that expire, 429 and 503 before
 * anything changed, and a 500, a dropped connection or a lost answer after the order was committed. The order
 * must end up in the ERP exactly once.
 */
describe('odata connector under session expiry and faults', () => {
  let fixture: OdataFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  const sapOrders = (f: OdataFixture, id: string) =>
    f.emulator.store.all('Orders').filter((row) => row['U_ApiOrderId'] === id);

  it('signs in again when the Service Layer session expired, and logs out on close', async () => {
    fixture = await openOdata('sap-b1-service-layer');
    const sink = fixture.connector.capabilities.orderSink;
    await sink?.writeOrder(order('ord_s1'));
    expect(fixture.emulator.stats.logins).toBe(1);
    fixture.emulator.expireSessions();
    expect((await sink?.writeOrder(order('ord_s2')))?.status).toBe('written');
    expect(fixture.emulator.stats.logins).toBe(2);
    expect(fixture.emulator.stats.expired).toBe(1);
    await fixture.connector.close();
    expect(fixture.emulator.stats.logouts).toBe(1);
    await fixture.emulator.close();
    fixture = undefined;
  });

  it('shares one Login between requests that find the session gone at the same time', async () => {
    fixture = await openOdata('sap-b1-service-layer');
    const sink = fixture.connector.capabilities.orderSink;
    await Promise.all(['a', 'b', 'c', 'd'].map((id) => sink?.findOrder(id)));
    expect(fixture.emulator.stats.logins).toBe(1);
  });

  it('logs in once per expired session, however late a request of the old session is answered', async () => {
    fixture = await openOdata('sap-b1-service-layer');
    const sink = fixture.connector.capabilities.orderSink;
    await sink?.findOrder('warm-up');
    expect(fixture.emulator.stats.logins).toBe(1);
    fixture.emulator.expireSessions();
    // A read sent with the old session, answered only after another request signed in again.
    const late = fixture.emulator.holdNext(/^Orders$/);
    const lateRead = sink?.findOrder('late');
    await late.reached;
    expect(await sink?.findOrder('early')).toBeNull();
    expect(fixture.emulator.stats.logins).toBe(2);
    late.release();
    expect(await lateRead).toBeNull();
    expect(fixture.emulator.stats.logins).toBe(2);
    await fixture.connector.close();
    expect(fixture.emulator.stats.logouts).toBe(1);
    await fixture.emulator.close();
    fixture = undefined;
  });

  it('refuses a Login answered by a redirect: signed in means a session', async () => {
    fixture = await openOdata('sap-b1-service-layer', {
      emulator: { loginRedirect: 'https://proxy.example/sign-in' },
    });
    const error = await fixture.connector.capabilities.orderSink
      ?.findOrder('any')
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connector_config_invalid', retryable: false });
    expect((error as Error).message).toMatch(
      /Login answered HTTP 302 without a B1SESSION.*check service_url/,
    );
    expect(fixture.emulator.stats.logins).toBe(0);
  });

  for (const kind of ['fail-after-commit', 'drop-after-commit', 'hang-after-commit'] as const) {
    it(`writes the order once when the ERP committed it and then the answer was lost (${kind})`, async () => {
      fixture = await openOdata('sap-b1-service-layer', {
        block: kind === 'hang-after-commit' ? { timeout: 1_000 } : {},
      });
      fixture.emulator.faults.next({ kind, status: 500, method: 'POST', path: /^Orders$/ });
      const result = await fixture.connector.capabilities.orderSink?.writeOrder(order('ord_lost_answer'));
      expect(fixture.emulator.faults.injected[kind]).toBe(1);
      expect(result?.status).toBe('written');
      const held = sapOrders(fixture, 'ord_lost_answer');
      expect(held).toHaveLength(1);
      expect(result?.erpOrderNumber).toBe(String(held[0]?.['DocNum']));
    });
  }

  for (const kind of ['fail-after-commit', 'drop-after-commit'] as const) {
    it(`Priority: a write that failed after the ERP committed it, then a re-run, leaves one order (${kind})`, async () => {
      const late: { plan?: OdataFixture['emulator']['faults'] } = {};
      // Once the order is committed, the look-up the connector makes before reporting the failure is refused too,
      // so the write fails as a whole and only the re-run can find the order.
      fixture = await openOdata('priority-rest', {
        emulator: {
          onCommit: ({ path }) => {
            if (path === 'ORDERS')
              late.plan?.next({ kind: 'refuse', status: 503, method: 'GET', path: /^ORDERS$/ });
          },
        },
      });
      const plan = fixture.emulator.faults;
      late.plan = plan;
      plan.next({ kind, status: 500, method: 'POST', path: /^ORDERS$/ });
      const sink = fixture.connector.capabilities.orderSink;
      const ordersFor = (id: string) =>
        fixture?.emulator.store.all('ORDERS').filter((row) => row['ZSSY_APIORDERID'] === id) ?? [];
      const failed = await sink?.writeOrder(order('ord_rerun')).catch((error: unknown) => error);
      expect(failed).toMatchObject({ retryable: true });
      expect(plan.injected[kind]).toBe(1);
      expect(plan.injected.refuse).toBe(1);
      expect(ordersFor('ord_rerun')).toHaveLength(1);
      const rerun = await sink?.writeOrder(order('ord_rerun'));
      expect(rerun?.status).toBe('already_written');
      const held = ordersFor('ord_rerun');
      expect(held).toHaveLength(1);
      expect(rerun?.erpOrderNumber).toBe(held[0]?.['ORDNAME']);
      expect((held[0]?.['ORDERITEMS_SUBFORM'] as unknown[]).length).toBe(2);
    });
  }

  it('reports 429 and 503 as retryable, writes nothing, and writes the order on the next attempt', async () => {
    fixture = await openOdata('priority-rest');
    const sink = fixture.connector.capabilities.orderSink;
    fixture.emulator.faults.next({ kind: 'refuse', status: 503, method: 'POST' });
    const refused = await sink?.writeOrder(order('ord_busy')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConnectorError);
    expect(refused).toMatchObject({ retryable: true });
    expect(
      fixture.emulator.store.all('ORDERS').filter((row) => row['ZSSY_APIORDERID'] === 'ord_busy'),
    ).toHaveLength(0);
    fixture.emulator.faults.next({ kind: 'refuse', status: 429, method: 'GET' });
    await expect(sink?.findOrder('ord_busy')).rejects.toMatchObject({ retryable: true });
    expect((await sink?.writeOrder(order('ord_busy')))?.status).toBe('written');
    expect(
      fixture.emulator.store.all('ORDERS').filter((row) => row['ZSSY_APIORDERID'] === 'ord_busy'),
    ).toHaveLength(1);
  });

  it('refuses write: batch for Priority, whose $batch keeps what it applied before a refused line', async () => {
    await expect(
      openOdata('priority-rest', { block: { entities: { orders: { write: 'batch' } } } }),
    ).rejects.toThrow(/"write"[\s\S]*does not \(batch_rollback: false\).*half an order\. Use deep_insert/);
    // What the refusal prevents: the emulated Priority, like the real one, keeps the order and its first lines.
    fixture = await openOdata('priority-rest', {
      block: { entities: { batch_rollback: true, orders: { write: 'batch' } } },
    });
    const error = await fixture.connector.capabilities.orderSink
      ?.writeOrder(order('ord_half', ['A100', 'A200', 'NOPE']))
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'connector_statement_failed', retryable: false });
    const kept = fixture.emulator.store.all('ORDERS').filter((row) => row['ZSSY_APIORDERID'] === 'ord_half');
    expect(kept.map((row) => (row['ORDERITEMS_SUBFORM'] as unknown[]).length)).toEqual([2]);
    const batches = fixture.oracle.seen.filter((request) => request.inBatch);
    expect(batches.map((request) => request.target)).toEqual([
      'ORDERS',
      '$1/ORDERITEMS_SUBFORM',
      '$1/ORDERITEMS_SUBFORM',
      '$1/ORDERITEMS_SUBFORM',
    ]);
    expect(fixture.oracle.failures).toEqual([]);
  });

  it('follows the service paging links until the last page', async () => {
    fixture = await openOdata('sap-b1-service-layer', { emulator: { pageSize: 1 } });
    const customers = await fixture.connector.capabilities.customerDirectory?.listCustomers();
    expect(customers?.map((customer) => customer.customerNumber)).toEqual(['C1001', 'C1002']);
    expect(
      fixture.oracle.seen.filter((request) => request.target.startsWith('BusinessPartners')).length,
    ).toBe(2);
    expect(fixture.oracle.failures).toEqual([]);
  });
});
