/**
 * Connector health over time, against a real PostgreSQL: the ERP's port is closed, then reopened (a loopback
 * forwarder to the real server). The daemon must log each change once, and show it in /readyz and metrics.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { requireServices, serviceProbe, type ServiceProbe } from '../connectors/services.js';
import { eventually, openHealthWorld, sample, type HealthWorld } from './health-support.js';
import { freePort } from '../support/free-port.js';

const PG_URL = process.env['PG_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';

const probe: ServiceProbe = await serviceProbe('PostgreSQL', PG_URL, async () => {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2_000 });
  await client.connect();
  await client.end();
});
requireServices(probe);

/** Forwards `port` to the real PostgreSQL server. */
async function forward(port: number): Promise<{ close(): Promise<void> }> {
  const target = new URL(PG_URL);
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!probe.available)(
  `connector health on a schedule (${probe.reason || 'PostgreSQL reachable'})`,
  () => {
    let world: HealthWorld;
    let forwarder: { close(): Promise<void> } | undefined;
    beforeAll(() => {
      if (!probe.available) console.warn(`skipped: ${probe.reason}`);
    });
    beforeEach(async () => {
      world = await openHealthWorld();
    });
    afterEach(async () => {
      await world.close();
      await forwarder?.close();
    });
    afterAll(() => undefined);

    it('logs down once with the reason, then up once, and shows both in /readyz and metrics', async () => {
      const port = await freePort();
      const url = new URL(PG_URL);
      url.port = String(port);
      const daemon = await world.start({
        health: { connector_check_interval: 200 },
        connectors: { erp: { type: 'sql', connection: { driver: 'pg', url: url.toString() } } },
      });

      const down = await world.readyz(daemon);
      expect(down.status).toBe(503);
      expect(down.body.reasons).toContainEqual(
        expect.objectContaining({ check: 'connector', name: 'erp', state: 'unreachable' }),
      );
      expect(sample(await world.metrics(daemon), 'supply_sync_connector_up{connector="erp"}')).toBe(0);
      // Several checks later the state has not changed: still one line.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const downLines = world.logs.filter((line) => line.msg === 'connector is down');
      expect(downLines).toHaveLength(1);
      expect(downLines[0]).toMatchObject({ level: 40, connector: 'erp' });
      expect(String(downLines[0]?.['reason'])).toMatch(/ECONNREFUSED|connect/i);

      forwarder = await forward(port);
      await eventually(() => world.logs.find((line) => line.msg === 'connector is up again'), 5_000);
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(world.logs.filter((line) => line.msg === 'connector is up again')).toHaveLength(1);
      expect(world.logs.filter((line) => line.msg === 'connector is down')).toHaveLength(1);
      expect(sample(await world.metrics(daemon), 'supply_sync_connector_up{connector="erp"}')).toBe(1);
      const up = await world.readyz(daemon);
      expect(up.status, JSON.stringify(up.body)).toBe(200);
      const status = await (
        await fetch(`${daemon.opsUrl}/status`, { headers: { accept: 'application/json' } })
      ).json();
      expect(status).toMatchObject({ connectors: [expect.objectContaining({ name: 'erp', ok: true })] });
    });
  },
);
