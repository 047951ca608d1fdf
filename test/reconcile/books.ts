/**
 * A buyer whose approved journal lines were exported by the real journal-export job into one configured target
 * (the same config block `reconcile` then reads), against the sandbox over HTTP.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { createApiClient, type ApiClient } from '../../src/client/index.js';
import { loadConfig, type LoadedConfig } from '../../src/config/index.js';
import { buildPluginRegistry } from '../../src/daemon/plugins/builtin.js';
import { createJournalExportJob, type JournalExportOptions } from '../../src/flows/journal-export/index.js';
import { runJournalReconcile } from '../../src/cli/reconcile/run.js';
import { parseScope } from '../../src/flows/reconcile/scope.js';
import type { ReconcileReport } from '../../src/flows/reconcile/report.js';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { openStateStore } from '../../src/state/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openConnector } from '../../src/cli/reconcile/open.js';
import { runCli, type CliResult } from '../cli/run-cli.js';
import { jobContext } from '../flows/job-context.js';
import { sandboxExportBatches, sandboxLines, type ReadoutLine } from '../flows/journal-export/harness.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface Books {
  readonly sandbox: Sandbox;
  readonly dir: string;
  readonly configFile: string;
  readonly loaded: LoadedConfig;
  /** The lines this export job marked exported (the seed's nightly exports left out), as the sandbox holds them. */
  readonly exported: readonly (ReadoutLine & { accounting_period: string; doc_date: string })[];
  reconcile(scope: { period?: string; from?: string; to?: string }): Promise<ReconcileReport>;
  close(): Promise<void>;
}

/** `connector(dir)`: the connector block of the books; `lines`: how many lines the buyer approves. */
export async function exportedBooks(
  connector: (dir: string) => Record<string, unknown>,
  options: { lines?: number; jobOptions?: Record<string, unknown> } = {},
): Promise<Books> {
  // The plan's 300 requests a minute would have each reconcile wait for the next minute: not what these tests check.
  const sandbox = await startSandbox({ createDomain, rateLimitOverrides: { all: { per_minute: 100_000 } } });
  const dir = await mkdtemp(join(tmpdir(), 'reconcile-'));
  try {
    const configFile = join(dir, 'supply-sync.yaml');
    await writeFile(configFile, configText(sandbox, dir, connector(dir), options.jobOptions ?? {}));
    const registry = buildPluginRegistry();
    const loaded = loadConfig(configFile, { env: {}, registry });
    await sandbox.control.action('approve_journal_lines', { count: options.lines ?? 24 });
    await exportOnce(sandbox, loaded, registry);
    const ours = new Set(
      (await sandboxExportBatches(sandbox)).filter((b) => b.external_ref?.startsWith('je-')).map((b) => b.id),
    );
    const exported = (await sandboxLines(sandbox)).filter((line) =>
      ours.has(line.export_batch_id ?? ''),
    ) as unknown as Books['exported'];
    return {
      sandbox,
      dir,
      configFile,
      loaded,
      exported,
      reconcile: (scope) => runJournalReconcile(loaded, registry, { scope: parseScope(scope) }),
      close: async () => {
        await sandbox.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}

function configText(
  sandbox: Sandbox,
  dir: string,
  books: Record<string, unknown>,
  jobOptions: Record<string, unknown>,
) {
  return stringify({
    api: { base_url: sandbox.baseUrl, api_key: sandbox.keys.buyer },
    state: { path: join(dir, 'state.db') },
    connectors: { books },
    jobs: {
      journal: {
        flow: 'journal-export',
        connector: 'books',
        options: { max_lines_per_batch: 10, ...jobOptions },
      },
    },
  });
}

/** One run of the journal-export job the config describes, through the connector the config builds. */
async function exportOnce(
  sandbox: Sandbox,
  loaded: LoadedConfig,
  registry: ReturnType<typeof buildPluginRegistry>,
) {
  const connector = await openConnector(loaded, registry, 'books');
  const api: ApiClient = createApiClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.buyer });
  const state = openStateStore({ file: loaded.config.state.path, clock: systemClock });
  try {
    const writer = connector.capabilities.accountingWriter;
    if (writer === undefined) throw new Error('the books connector has no accountingWriter');
    const job = createJournalExportJob({
      name: 'journal',
      api,
      writer,
      connectorName: 'books',
      options: loaded.config.jobs['journal']?.options as JournalExportOptions,
    });
    const result = await job.run(jobContext(state));
    if (result.outcome !== 'ok') throw new Error(`the export run ended ${result.outcome}`);
  } finally {
    state.close();
    await api.close();
    await connector.close();
  }
}

/** The period holding the most exported lines, and every date the exported lines span. */
export function scopes(books: Books): { period: string; from: string; to: string } {
  const byPeriod = new Map<string, number>();
  for (const line of books.exported)
    byPeriod.set(line.accounting_period, (byPeriod.get(line.accounting_period) ?? 0) + 1);
  const [period = ''] = [...byPeriod.entries()].sort((a, b) => b[1] - a[1])[0] ?? [];
  const dates = books.exported.map((line) => line.doc_date).sort();
  return { period, from: dates[0] ?? '', to: dates.at(-1) ?? '' };
}

/** `supply-sync -c <config> reconcile <args>` in a child process, as a user runs it. */
export function reconcileCli(books: Books, args: readonly string[]): Promise<CliResult> {
  return runCli(['-c', books.configFile, 'reconcile', ...args]);
}

/** The report a `--json` run printed. */
export function jsonReport(result: CliResult): ReconcileReport & { outcome: string } {
  return JSON.parse(result.stdout) as ReconcileReport & { outcome: string };
}

/** Every file under `folder` with its bytes' hash, and the sandbox's journal lines and export batches. */
export async function snapshot(books: Books, folder: string): Promise<string> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(`${path} ${createHash('sha256').update(readFileSync(path)).digest('hex')}`);
    }
  };
  walk(folder);
  const state = await books.sandbox.control.state();
  return JSON.stringify({
    files: files.sort(),
    lines: state['journalLines'],
    batches: state['exportBatches'],
  });
}

/** Parses a CSV file with Python's csv module (an implementation we did not write) and returns its rows. */
export function pythonCsvRows(file: string): string[][] {
  const script =
    'import csv,json,sys\nwith open(sys.argv[1], newline="") as f: print(json.dumps(list(csv.reader(f))))';
  return JSON.parse(execFileSync('python3', ['-c', script, file], { encoding: 'utf8' })) as string[][];
}
