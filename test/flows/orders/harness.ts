/**
 * A real setup for the supplier order flows: the sandbox over loopback HTTP, a SQLite state file, and the demo
 * ERP on a SQLite file, all in a fresh temporary folder.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pino } from 'pino';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import type { Connector } from '../../../src/connector-contract/index.js';
import type { FlowDeps, Mappings } from '../../../src/plugin/index.js';
import { runJob, type Job, type RunResult } from '../../../src/engine/index.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';
import { demoErpConfigSchema, demoErpConnectorDefinition } from '../../../connectors/sql/demo-erp/index.js';
import type { SqlConnector } from '../../../connectors/sql/connector.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

/** Ship-to codes of the demo ERP for the sandbox's demo branches. */
export const DEMO_SHIP_TO: Readonly<Record<string, string>> = {
  br_tlv: 'TLV01',
  br_hrz: 'HRZ02',
  br_jlm: 'JLM03',
  br_hfa: 'HFA04',
  br_bsh: 'BSH05',
  br_rnn: 'RNN06',
};

export const silentLogger = pino({ level: 'silent' });

export interface OrdersWorld {
  dir: string;
  sandbox: Sandbox;
  api: ApiClient;
  state: StateStore;
  erp: SqlConnector;
  /** Every HTTP attempt the client made: its status (null when the connection failed). */
  calls: Array<{ route: string; status: number | null }>;
  deps(mappings?: Mappings): FlowDeps;
  run(job: Job, budgetMs?: number): Promise<RunResult>;
  erpRows<T>(sql: string, params?: Record<string, string | number | null>): Promise<T[]>;
  tallies(): Promise<Record<string, { acknowledgements: number; confirmations: number; rejections: number }>>;
  sandboxOrder(id: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function openOrdersWorld(
  options: { sandbox?: Sandbox; erpDir?: string } = {},
): Promise<OrdersWorld> {
  const dir = await mkdtemp(path.join(tmpdir(), 'supply-orders-'));
  const sandbox = options.sandbox ?? (await startSandbox({}));
  const calls: OrdersWorld['calls'] = [];
  const api = createApiClient({
    onCall: (event) => calls.push({ route: event.route, status: event.status }),
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.keys.supplier,
    retry: { maxAttempts: 8, baseDelayMs: 5, maxDelayMs: 50, deadlineMs: 20_000 },
  });
  const state = openStateStore({ file: path.join(dir, 'state.db'), clock: systemClock });
  const erp = (await demoErpConnectorDefinition.create(
    demoErpConfigSchema.parse({ data_dir: options.erpDir ?? 'erp', journal: false }),
    { name: 'erp', baseDir: dir },
  )) as SqlConnector;
  const world: OrdersWorld = {
    dir,
    sandbox,
    api,
    state,
    erp,
    calls,
    deps: (mappings = { branches: DEMO_SHIP_TO }) => ({
      api,
      connector: (name: string): Connector => {
        if (name !== 'erp') throw new Error(`unknown connector ${name}`);
        return erp;
      },
      state,
      mappings,
      logger: silentLogger,
      clock: systemClock,
      workDir: dir,
    }),
    run: (job, budgetMs = 60_000) =>
      runJob(job, {
        signal: new AbortController().signal,
        budgetMs,
        dryRun: false,
        logger: silentLogger,
        clock: systemClock,
        state,
        trigger: 'cli',
      }),
    erpRows: async <T>(sql: string, params: Record<string, string | number | null> = {}) =>
      (await erp.driver.query(sql, params)).rows as T[],
    tallies: async () => {
      const readout = await sandbox.control.state();
      return readout['orderTallies'] as Record<
        string,
        { acknowledgements: number; confirmations: number; rejections: number }
      >;
    },
    sandboxOrder: async (id) => {
      const readout = await sandbox.control.state();
      const orders = readout['orders'] as Record<string, Record<string, unknown>>;
      const order = orders[id];
      if (order === undefined) throw new Error(`sandbox has no order ${id}`);
      return order;
    },
    close: async () => {
      await api.close();
      await erp.close();
      state.close();
      if (options.sandbox === undefined) await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return world;
}

/** Sends new orders as the demo buyer; returns their ids. */
export async function buyerSendsOrders(
  sandbox: Sandbox,
  body: Record<string, unknown> = {},
): Promise<string[]> {
  const result = (await sandbox.control.action('buyer_send_order', body)) as { order_ids: string[] };
  return result.order_ids;
}
