/** Real parts for the flow's tests: the sandbox over HTTP, a SQLite state file, a Hashavshevet folder. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import { createDomain } from '../../../src/sandbox/domain/index.js';
import { createManualClock, startSandbox } from '../../../src/sandbox/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore, type StateStore } from '../../../src/state/index.js';
import { HashavshevetWriter, hashavshevetConfigSchema } from '../../../connectors/hashavshevet/index.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface Harness {
  sandbox: Sandbox;
  api: ApiClient;
  dir: string;
  importDir: string;
  stateFile: string;
  state: StateStore;
  writer: HashavshevetWriter;
  close(): Promise<void>;
}

export function newWriter(importDir: string): HashavshevetWriter {
  return new HashavshevetWriter(
    hashavshevetConfigSchema.parse({ import_dir: importDir, long_references: 'last_digits' }),
    'books',
  );
}

export async function startHarness(options: { manualClock?: boolean } = {}): Promise<Harness> {
  const sandbox = await startSandbox({
    createDomain,
    ...(options.manualClock === true ? { clock: createManualClock() } : {}),
  });
  const dir = await mkdtemp(join(tmpdir(), 'journal-export-'));
  const importDir = join(dir, 'imports');
  const stateFile = join(dir, 'state.db');
  const api = createApiClient({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.keys.buyer,
    retry: { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 50, deadlineMs: 20_000 },
  });
  const state = openStateStore({ file: stateFile, clock: systemClock });
  return {
    sandbox,
    api,
    dir,
    importDir,
    stateFile,
    state,
    writer: newWriter(importDir),
    async close() {
      try {
        state.close();
        await api.close();
        await sandbox.close();
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

export { jobContext } from '../job-context.js';

export interface ReadoutLine {
  id: string;
  status: string;
  export_batch_id: string | null;
  document_id: string;
  document_type: string;
  document_number?: string;
  side: string;
  amount: string;
  account: string;
  counter_account: string | null;
  reference: string;
  branch_id: string;
  purchase_type?: string | null;
  vendor_tax_id?: string | null;
}

/** Journal lines as the sandbox holds them (its control-plane read-out, not the API). */
export async function sandboxLines(sandbox: Sandbox): Promise<ReadoutLine[]> {
  const readout = await sandbox.control.state();
  const lines = readout['journalLines'];
  if (lines === null || typeof lines !== 'object') throw new Error('sandbox read-out has no journalLines');
  return Object.values(lines as Record<string, ReadoutLine>);
}

/** Export batches as the sandbox holds them. */
export async function sandboxExportBatches(
  sandbox: Sandbox,
): Promise<{ id: string; line_count: number; external_ref: string | null }[]> {
  const readout = await sandbox.control.state();
  const batches = readout['exportBatches'];
  if (batches === null || typeof batches !== 'object')
    throw new Error('sandbox read-out has no exportBatches');
  return Object.values(
    batches as Record<string, { id: string; line_count: number; external_ref: string | null }>,
  );
}
