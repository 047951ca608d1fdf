/** Real parts for the supplier flows' tests: the sandbox over HTTP, a SQLite state file, the demo ERP on SQLite. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import type { Connector, DocumentSource } from '../../../src/connector-contract/index.js';
import { createDomain } from '../../../src/sandbox/domain/index.js';
import { startSandbox } from '../../../src/sandbox/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';
import {
  demoErpConnectorDefinition,
  openDemoErp,
  simulateErpActivity,
  type DemoErp,
} from '../../../connectors/sql/demo-erp/index.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface SupplierHarness {
  sandbox: Sandbox;
  api: ApiClient;
  dir: string;
  erpDir: string;
  stateFile: string;
  state: StateStore;
  /** The demo ERP as the ERP's own users see it (simulate activity, run SQL). */
  erp: DemoErp;
  /** The same ERP as the flows see it: the demo-erp connector. */
  connector: Connector;
  close(): Promise<void>;
}

/** The demo ERP's document source (the documents flow reads it). */
export function documentSourceOf(harness: SupplierHarness): DocumentSource {
  const source = harness.connector.capabilities.documentSource;
  if (source === undefined) throw new Error('the demo ERP offers no document source');
  return source;
}

/** Issues `count` new documents in the demo ERP; returns their numbers. */
export async function issueDocuments(harness: SupplierHarness, count: number, seed = 1): Promise<string[]> {
  const result = await simulateErpActivity(harness.erp, {
    clock: systemClock,
    random: mulberry32(seed),
    documents: count,
    confirmations: 0,
    catalogChanges: 0,
  });
  return result.documents;
}

export async function startSupplierHarness(): Promise<SupplierHarness> {
  const sandbox = await startSandbox({ createDomain });
  const dir = await mkdtemp(join(tmpdir(), 'supplier-flows-'));
  const erpDir = join(dir, 'erp');
  const erp = await openDemoErp(erpDir);
  const connector = await demoErpConnectorDefinition.create(
    { data_dir: erpDir, journal: false },
    { name: 'erp', baseDir: dir },
  );
  const stateFile = join(dir, 'state.db');
  const api = supplierClient(sandbox.baseUrl, sandbox.keys.supplier);
  const state = openStateStore({ file: stateFile, clock: systemClock });
  return {
    sandbox,
    api,
    dir,
    erpDir,
    stateFile,
    state,
    erp,
    connector,
    async close() {
      state.close();
      await api.close();
      await connector.close();
      await erp.driver.close();
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function supplierClient(baseUrl: string, apiKey: string): ApiClient {
  return createApiClient({
    baseUrl,
    apiKey,
    retry: { maxAttempts: 8, baseDelayMs: 5, maxDelayMs: 50, deadlineMs: 30_000 },
    rateLimit: { perMinute: 100_000 },
  });
}

export { jobContext } from '../job-context.js';

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ReadoutDocument {
  id: string;
  type: string;
  number: string;
  buyer: { id: string };
  buyer_status: string;
  files: { id: string }[];
  totals: { before_vat: string; vat: string; with_vat: string };
  external_ref: string | null;
  differences: unknown[];
}

/** Documents and their creation tallies as the sandbox holds them (control-plane read-out, not the API). */
export async function sandboxDocuments(sandbox: Sandbox): Promise<{
  documents: ReadoutDocument[];
  tallies: Record<string, { creations: number; duplicateAttempts: number }>;
}> {
  const readout = await sandbox.control.state();
  const documents = readout['documents'] as Record<string, ReadoutDocument> | undefined;
  const tallies = readout['documentTallies'] as
    Record<string, { creations: number; duplicateAttempts: number }> | undefined;
  if (documents === undefined || tallies === undefined) throw new Error('sandbox read-out has no documents');
  return { documents: Object.values(documents), tallies };
}

export interface ReadoutProduct {
  sku: string;
  name: string;
  unit: string;
  available: boolean;
  available_until: string | null;
  category?: string | null;
  external_ref?: string | null;
  deleted_at: string | null;
  updated_at: string;
}

export async function sandboxCatalog(sandbox: Sandbox): Promise<{
  products: Record<string, ReadoutProduct>;
  prices: Record<string, { sku: string; price: string; min_quantity?: string; valid_from?: string }[]>;
  priceLists: Record<string, { id: string; buyer_ids: string[] }>;
}> {
  const readout = await sandbox.control.state();
  return {
    products: readout['products'] as Record<string, ReadoutProduct>,
    prices: readout['prices'] as Record<string, { sku: string; price: string }[]>,
    priceLists: readout['priceLists'] as Record<string, { id: string; buyer_ids: string[] }>,
  };
}
