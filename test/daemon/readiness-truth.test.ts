/**
 * Readiness tells the truth about the API key, failed runs and dead letters, against the real sandbox: the seeded
 * keys give the contract's 401/403 answers, and the demo ERP runs on a real SQLite file.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { demoErpStatements, openDemoErp, DEMO_ERP_FILE } from '../../connectors/sql/demo-erp/index.js';
import { eventually, openHealthWorld, sample, type HealthWorld } from './health-support.js';

const BRANCHES = {
  br_tlv: 'TLV01',
  br_hrz: 'HRZ02',
  br_jlm: 'JLM03',
  br_hfa: 'HFA04',
  br_bsh: 'BSH05',
  br_rnn: 'RNN06',
};

describe('readiness and the API key', () => {
  let world: HealthWorld;
  beforeEach(async () => {
    world = await openHealthWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  const madeUpKey = `svc_test_${'x1'.repeat(16)}`;
  it.each([
    ['a made-up key', () => madeUpKey, 'unauthorized'],
    ['an expired key', () => world.sandbox.keys.expired, 'key_expired'],
    ['a revoked key', () => world.sandbox.keys.revoked, 'key_revoked'],
    ['a suspended client', () => world.sandbox.keys.suspended, 'client_suspended'],
  ])('fails /readyz at once with %s, naming the code and api.api_key', async (_name, key, code) => {
    const apiKey = key();
    const daemon = await world.start({
      api: { base_url: world.sandbox.baseUrl, api_key: apiKey },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '* * * * *', freshness: '1m' } },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      mappings: { branches: BRANCHES },
    });
    const { status, body } = await world.readyz(daemon);
    expect(status).toBe(503);
    const refused = body.reasons.find((reason) => reason.check === 'api');
    expect(refused).toMatchObject({ state: 'refused', code, configKey: 'api.api_key' });
    expect(refused?.detail).toContain('api.api_key');
    expect(JSON.stringify(body)).not.toContain(apiKey);

    // The job that never succeeded fails readiness as soon as a run failed, not after its freshness.
    await daemon.runNow('orders');
    const after = await world.readyz(daemon);
    expect(after.body.reasons).toContainEqual(
      expect.objectContaining({ check: 'job', name: 'orders', state: 'failing' }),
    );
    expect(world.logs.some((line) => line.level === 50 && String(line.msg).includes(code))).toBe(true);
    const html = await (await fetch(`${daemon.opsUrl}/status`)).text();
    expect(html).toContain(code);
    expect(html).not.toContain('>Ready<');
    expect(JSON.stringify(world.logs)).not.toContain(apiKey);
    expect(html).not.toContain(apiKey);
  });

  /** A daemon whose key, a revoked one, comes from a file next to its config. */
  const startWithKeyFile = async (apiKey: string) => {
    await writeFile(join(world.dir, 'api.key'), `${apiKey}\n`);
    return world.start({
      api: { base_url: world.sandbox.baseUrl, api_key_file: 'api.key' },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      mappings: { branches: BRANCHES },
    });
  };

  it('names api.api_key_file on /readyz when the key comes from a file', async () => {
    const apiKey = world.sandbox.keys.revoked;
    const daemon = await startWithKeyFile(apiKey);
    const { body } = await world.readyz(daemon);
    const refused = body.reasons.find((reason) => reason.check === 'api');
    expect(refused).toMatchObject({ state: 'refused', code: 'key_revoked', configKey: 'api.api_key_file' });
    expect(refused?.detail).toContain('create a new key in the API console and set it (api.api_key_file)');
    expect(JSON.stringify(body)).not.toContain(apiKey);
  });

  it('logs a refused key once at error with the code, the key to change and the fix, never a stack', async () => {
    const apiKey = world.sandbox.keys.revoked;
    const daemon = await startWithKeyFile(apiKey);
    await daemon.runNow('orders');
    const told = world.logs.filter(
      (line) => JSON.stringify(line).includes('key_revoked') && line.level >= 40,
    );
    const refusals = told.filter((line) => line.msg !== 'run failed');
    expect(refusals).toEqual([
      expect.objectContaining({ level: 50, code: 'key_revoked', configKey: 'api.api_key_file' }),
    ]);
    expect(refusals[0]?.msg).toContain('create a new key in the API console and set it (api.api_key_file)');
    expect(JSON.stringify(told)).not.toMatch(/\\n\s+at /);
    expect(JSON.stringify(world.logs)).not.toContain(apiKey);
  });

  it('fails /readyz with scope_missing when a read-only key is refused a write', async () => {
    await openDemoErp(join(world.dir, 'erp')).then((erp) => erp.driver.close());
    await world.sandbox.control.action('buyer_send_order', {});
    const daemon = await world.start({
      api: { base_url: world.sandbox.baseUrl, api_key: world.sandbox.keys.readOnly },
      jobs: { orders: { flow: 'orders', connector: 'erp', freshness: '15m' } },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      mappings: { branches: BRANCHES },
    });
    expect((await world.readyz(daemon)).status).toBe(200);
    await daemon.runNow('orders');
    const { status, body } = await world.readyz(daemon);
    expect(status).toBe(503);
    expect(body.reasons).toContainEqual(
      expect.objectContaining({
        check: 'api',
        state: 'refused',
        code: 'scope_missing',
        configKey: 'api.api_key',
      }),
    );
  });

  it('fails /readyz with plan_required when a Basic plan key runs a buyer job', async () => {
    const daemon = await world.start({
      api: { base_url: world.sandbox.baseUrl, api_key: world.sandbox.keys.basic },
      connectors: {
        bi: {
          type: 'sql',
          connection: { driver: 'sqlite', file: 'bi.db' },
          mirror: { table_prefix: 'mirror_' },
        },
      },
      jobs: { mirror: { flow: 'mirror', connector: 'bi', options: { resources: ['journal_lines'] } } },
    });
    await daemon.runNow('mirror');
    const { status, body } = await world.readyz(daemon);
    expect(status).toBe(503);
    expect(body.reasons).toContainEqual(
      expect.objectContaining({
        check: 'api',
        state: 'refused',
        code: 'plan_required',
        configKey: 'api.api_key',
      }),
    );
  });

  it('counts a job that never succeeded as overdue once its freshness has passed since the start', async () => {
    const daemon = await world.start({
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      // Never due by its schedule in this test, and never run: only the time since the start can fail it.
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *', freshness: 300 } },
      mappings: { branches: BRANCHES },
    });
    expect((await world.readyz(daemon)).status).toBe(200);
    const { body } = await eventually(async () => {
      const readyz = await world.readyz(daemon);
      return readyz.status === 503 ? readyz : undefined;
    }, 5_000);
    expect(body.reasons).toEqual([
      expect.objectContaining({ check: 'job', name: 'orders', state: 'overdue' }),
    ]);
  });
});

describe('run outcomes and dead letters', () => {
  let world: HealthWorld;
  beforeEach(async () => {
    world = await openHealthWorld();
  });
  afterEach(async () => {
    await world.close();
  });

  it('fails a run whose every order went to dead letters (no branch mapping for any order)', async () => {
    const erp = await openDemoErp(join(world.dir, 'erp'));
    await erp.driver.close();
    await world.sandbox.control.action('buyer_send_order', {});
    await world.sandbox.control.action('buyer_send_order', {});
    const daemon = await world.start({
      connectors: {
        erp: {
          type: 'sql',
          connection: { driver: 'sqlite', file: join('erp', DEMO_ERP_FILE) },
          statements: demoErpStatements,
        },
      },
      jobs: { orders: { flow: 'orders', connector: 'erp', freshness: '15m' } },
      mappings: { branches: {} },
    });
    await daemon.runNow('orders');

    const run = daemon.env.state.runs.last('orders');
    const deadLetters = daemon.env.state.deadLetters.countOpen('orders');
    expect(deadLetters).toBeGreaterThan(0);
    expect(run).toMatchObject({ outcome: 'failed' });
    expect(run?.error).toMatch(/delivered nothing: all \d+ orders held back/);

    const { status, body } = await world.readyz(daemon);
    expect(status).toBe(503);
    expect(body.reasons).toContainEqual(
      expect.objectContaining({ check: 'job', name: 'orders', state: 'failing' }),
    );
    const metrics = await world.metrics(daemon);
    expect(sample(metrics, 'supply_sync_job_healthy{sync_job="orders"}')).toBe(0);
    expect(sample(metrics, 'supply_sync_runs_total{sync_job="orders",outcome="failed"}')).toBe(1);
    expect(sample(metrics, 'supply_sync_dead_letters_open{flow="orders"}')).toBe(deadLetters);
    expect(sample(metrics, 'supply_sync_ready')).toBe(0);
  });

  it('holds back a job with a misspelt statement parameter: failing at once, nothing written or dead-lettered', async () => {
    const erp = await openDemoErp(join(world.dir, 'erp'));
    await erp.driver.close();
    await world.sandbox.control.action('buyer_send_order', {});
    const orders = demoErpStatements.orders;
    if (orders === undefined) throw new Error('the demo ERP has order statements');
    const statements = {
      ...demoErpStatements,
      orders: { ...orders, insert_line: orders.insert_line.replace(':unit_price', ':unit_pricee') },
    };
    const daemon = await world.start({
      connectors: {
        erp: { type: 'sql', connection: { driver: 'sqlite', file: join('erp', DEMO_ERP_FILE) }, statements },
      },
      jobs: { orders: { flow: 'orders', connector: 'erp', freshness: '15m' } },
      mappings: { branches: BRANCHES },
    });

    // Before any run: readiness already names the statement and the bad parameter.
    const before = await world.readyz(daemon);
    expect(before.status).toBe(503);
    const reason = before.body.reasons.find((r) => r.check === 'job' && r.name === 'orders');
    expect(reason).toMatchObject({ state: 'failing' });
    expect(reason?.detail).toMatch(/insert_line.*:unit_pricee/);

    await daemon.runNow('orders');
    const run = daemon.env.state.runs.last('orders');
    expect(run).toMatchObject({ outcome: 'failed' });
    expect(run?.error).toMatch(/:unit_pricee/);
    expect(daemon.env.state.deadLetters.countOpen('orders')).toBe(0);
    const metrics = await world.metrics(daemon);
    expect(sample(metrics, 'supply_sync_job_healthy{sync_job="orders"}')).toBe(0);
    expect(sample(metrics, 'supply_sync_ready')).toBe(0);
  });
});
