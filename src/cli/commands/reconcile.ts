/**
 * `supply-sync reconcile journal --period YYYY-MM | --from D --to D [--job NAME] [--json] [--out FILE]`: compares
 * what the API exported with the books, and reads only. Exit 0 when everything matches, 1 when something differs,
 * 2 when it could not run (then nothing is written, not even --out). `reconcile orders --since 7d` checks the ERP;
 * documents and catalog say why they cannot be compared.
 */
import type { CommandSpec, Invocation, OptionSpec } from '../command-spec.js';
import { writeFileAtomic } from '../../kit/atomic-file.js';
import { differencesCsv, reportJson, reportText } from '../reconcile/format.js';
import { runJournalReconcile, runOrdersReconcile } from '../reconcile/run.js';
import type { StateStore } from '../../state/index.js';
import { parseDuration } from '../../config/index.js';
import { parseScope, ScopeError, type ReconcileReport, type Scope } from '../../flows/reconcile/index.js';
import { globalOptions, loadCliConfig, loadCliCompanies, type CliContext } from '../context.js';
import { reconcileCompanies, reportCompanies } from '../reconcile/companies.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from '../errors.js';
import { buildPluginRegistry } from '../plugins.js';
import { openStateForReading } from '../state-access.js';

interface OutputOptions {
  json?: boolean;
  out?: string;
}

function scopeOf(options: { period?: string; from?: string; to?: string }): Scope {
  try {
    return parseScope(options);
  } catch (error) {
    if (error instanceof ScopeError) throw new CliError(error.message, 'usage', EXIT_USAGE);
    throw error;
  }
}

/** Anything that stops a reconciliation before it has compared everything: exit 2. */
async function couldNotRun<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof CliError) throw error;
    const message = error instanceof Error ? error.message : String(error);
    throw new CliError(`reconcile could not run: ${message}`, 'reconcile_failed', EXIT_USAGE);
  }
}

async function report(context: CliContext, result: ReconcileReport, options: OutputOptions): Promise<void> {
  if (options.out !== undefined) {
    const out = options.out;
    await couldNotRun(() => writeFileAtomic(out, differencesCsv(result)));
  }
  if (options.json === true) context.output.line(reportJson(result));
  else for (const line of reportText(result)) context.output.line(line);
  const n = result.differences.length;
  if (n > 0) throw new CliError(`${n} difference(s) found`, 'differences_found', EXIT_FAILURE);
}

/** What the API cannot be compared with, and why: said plainly instead of a check that cannot see. */
const CANNOT = {
  documents:
    'reconcile documents cannot run: the document source of a connector lists only the documents still to send ' +
    '(statements.documents.pending), not those already sent, so there is nothing in the ERP to compare the API ' +
    "documents with. Check sent documents with the ERP's own report of documents and their API ids",
  catalog:
    'reconcile catalog cannot run: the contract gives a supplier no read of its own catalog (section 4.5 lists ' +
    'writes only: PUT, DELETE, batch, availability and prices), so the API side cannot be read. The catalog job ' +
    "pushes the ERP snapshot's differences on every run; `supply-sync sync <catalog job> --dry-run` shows what it would change",
} as const;

function sinceOf(text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new CliError(`--since "${text}" is not a duration like 7d, 36h or 90m`, 'usage', EXIT_USAGE);
  }
  return ms;
}

/** The ERP numbers the daemon's orders job recorded; an absent state only weakens the check, with a note. */
function daemonState(
  context: CliContext,
  where: Parameters<typeof openStateForReading>[0],
): StateStore | undefined {
  try {
    return openStateForReading(where);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    context.output.note(
      `note: the daemon's state cannot be read (${reason}); orders acknowledged elsewhere are not told apart`,
    );
    return undefined;
  }
}

type JournalOptions = {
  period?: string;
  from?: string;
  to?: string;
  job?: string;
  all?: boolean;
} & OutputOptions;

async function reconcileJournal({ context, options, command }: Invocation<JournalOptions>): Promise<void> {
  const scope = scopeOf(options);
  const registry = await buildPluginRegistry();
  if (options.all === true) {
    const { configs, failed } = await loadCliCompanies(context, globalOptions(command));
    const results = await reconcileCompanies(configs, (loaded) =>
      runJournalReconcile(loaded, registry, { scope, job: options.job }),
    );
    const unread = [...failed].map(([company, problems]) => ({
      company,
      error: `its config has mistakes:\n${problems}`,
    }));
    return reportCompanies(context, [...unread, ...results], options);
  }
  const loaded = await loadCliConfig(context, globalOptions(command));
  const result = await couldNotRun(() => runJournalReconcile(loaded, registry, { scope, job: options.job }));
  await report(context, result, options);
}

async function reconcileOrders({
  context,
  options,
  command,
}: Invocation<{ since: string; job?: string } & OutputOptions>): Promise<void> {
  const sinceMs = sinceOf(options.since);
  const loaded = await loadCliConfig(context, globalOptions(command));
  const registry = await buildPluginRegistry();
  const state = daemonState(context, loaded.config.state);
  try {
    const result = await couldNotRun(() =>
      runOrdersReconcile(loaded, registry, {
        sinceMs,
        sinceLabel: options.since,
        job: options.job,
        now: Date.now(),
        writtenAs: (job, connector, orderId) =>
          state?.ledger.get({ flow: job, connector, recordKey: orderId, version: 'erp-order' })
            ?.externalRef ?? null,
      }),
    );
    await report(context, result, options);
  } finally {
    state?.close();
  }
}

const OUTPUT_OPTIONS: readonly OptionSpec[] = [
  { flags: '--json', description: 'print the report as JSON' },
  { flags: '--out <file>', description: 'write the differences as CSV to this file' },
];

/** A flow reconcile cannot check: the command says why and exits 2. */
function unavailable(name: string, reason: string): CommandSpec {
  return {
    name,
    description: `not available for ${name}: prints why and exits 2`,
    run: () => Promise.reject(new CliError(reason, 'reconcile_unavailable', EXIT_USAGE)),
  };
}

export const RECONCILE_COMMANDS: CommandSpec = {
  name: 'reconcile',
  description:
    'compare the API with the books and the ERP; reads only (exit 0 match, 1 differences, 2 could not run)',
  subcommands: [
    {
      name: 'journal',
      description: 'the lines the API lists as exported against the books of the journal-export target',
      options: [
        { flags: '--period <YYYY-MM>', description: 'an accounting period' },
        { flags: '--from <date>', description: 'first date, YYYY-MM-DD (with --to)' },
        { flags: '--to <date>', description: 'last date, YYYY-MM-DD (with --from)' },
        {
          flags: '--job <name>',
          description: 'the journal-export job to check (needed when the config has several)',
        },
        {
          flags: '--all',
          description:
            'with an office config: every company, one after the other (exit 2 when one could not be checked)',
        },
        ...OUTPUT_OPTIONS,
      ],
      run: reconcileJournal,
    },
    {
      name: 'orders',
      description:
        "every order the API lists against the ERP, and each acknowledgement's ERP number against the ERP's",
      options: [
        {
          flags: '--since <duration>',
          description: 'orders changed in the API within this time',
          default: '7d',
        },
        {
          flags: '--job <name>',
          description: 'the orders job to check (needed when the config has several)',
        },
        ...OUTPUT_OPTIONS,
      ],
      run: reconcileOrders,
    },
    ...Object.entries(CANNOT).map(([name, reason]) => unavailable(name, reason)),
  ],
};
