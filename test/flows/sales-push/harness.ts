/** Real parts for the sales-push tests: the sandbox over HTTP, a SQLite state file, a drop folder on disk. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import type { Connector } from '../../../src/connector-contract/index.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';
import { csvSalesConnectorDefinition } from '../../../connectors/csv-sales/index.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface SalesHarness {
  sandbox: Sandbox;
  api: ApiClient;
  dir: string;
  dropDir: string;
  stateFile: string;
  state: StateStore;
  /** Closes the state store and opens the same file again, as a restarted daemon would. */
  reopenState(): StateStore;
  csvConnector(): Promise<Connector>;
  drop(name: string, lines: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

export async function startSalesHarness(): Promise<SalesHarness> {
  const sandbox = await startSandbox({ rateLimitOverrides: { all: { per_minute: 100_000 } } });
  const dir = await mkdtemp(join(tmpdir(), 'sales-push-'));
  const dropDir = join(dir, 'pos');
  await mkdir(dropDir, { recursive: true });
  const stateFile = join(dir, 'state.db');
  const api = createApiClient({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.keys.buyer,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50, deadlineMs: 20_000 },
  });
  const harness: SalesHarness = {
    sandbox,
    api,
    dir,
    dropDir,
    stateFile,
    state: openStateStore({ file: stateFile, clock: systemClock }),
    reopenState() {
      harness.state.close();
      harness.state = openStateStore({ file: stateFile, clock: systemClock });
      return harness.state;
    },
    csvConnector: () =>
      csvSalesConnectorDefinition.create(
        {
          in_dir: 'pos',
          done_dir: 'done',
          failed_dir: 'failed',
          separator: ',',
          encoding: 'utf-8',
          min_age: 0,
        },
        { name: 'pos', baseDir: dir },
      ),
    async drop(name, lines) {
      const tmp = join(dropDir, `${name}.tmp`);
      await writeFile(tmp, `${lines.join('\r\n')}\r\n`);
      const { rename } = await import('node:fs/promises');
      await rename(tmp, join(dropDir, name));
    },
    async close() {
      harness.state.close();
      await api.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return harness;
}

export { jobContext } from '../job-context.js';

interface StoredZReport {
  id: string;
  branch_id: string;
  z_number: string;
  total_before_vat: string;
  tips?: string;
}
interface StoredItemSale {
  id: string;
  branch_id: string;
  z_number: string;
  line_number?: number;
  item_code: string;
  quantity: string;
}

/** Z-reports and item sales as the sandbox holds them (its control-plane read-out, not the API). */
export async function sandboxSales(
  sandbox: Sandbox,
  zNumber: string,
): Promise<{ zReports: StoredZReport[]; itemSales: StoredItemSale[] }> {
  const readout = await sandbox.control.state();
  const z = Object.values(readout['zReports'] as Record<string, StoredZReport>);
  const items = Object.values(readout['itemSales'] as Record<string, StoredItemSale>);
  return {
    zReports: z.filter((r) => r.z_number.startsWith(zNumber)),
    itemSales: items.filter((s) => s.z_number.startsWith(zNumber)),
  };
}

export const Z_HEADER = 'branch_code,z_number,closed_at,total_before_vat,tips,orders_count';
export const ITEM_HEADER =
  'branch_code,z_number,line_number,value_date,item_code,item_name,quantity,unit_price,total,main_category';
