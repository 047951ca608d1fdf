/**
 * `supply-sync reconcile journal --period YYYY-MM | --from D --to D [--job NAME] [--json] [--out FILE]`: compares
 * what the API exported with the books, and reads only. Exit 0 when everything matches, 1 when something differs,
 * 2 when it could not run (then nothing is written, not even --out).
 */
import type { Command } from 'commander';
import { writeFileAtomic } from '../../kit/atomic-file.js';
import { differencesCsv, reportJson, reportText } from '../../reconcile/format.js';
import type { ReconcileReport } from '../../reconcile/report.js';
import { runJournalReconcile } from '../../reconcile/run.js';
import { parseScope, ScopeError, type Scope } from '../../reconcile/scope.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from '../errors.js';
import { buildPluginRegistry } from '../plugins.js';

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

export function registerReconcileCommands(program: Command, context: CliContext): void {
  const reconcile = program
    .command('reconcile')
    .description(
      'compare the API with the books and the ERP; reads only (exit 0 match, 1 differences, 2 could not run)',
    );

  reconcile
    .command('journal')
    .description('the lines the API lists as exported against the books of the journal-export target')
    .option('--period <YYYY-MM>', 'an accounting period')
    .option('--from <date>', 'first date, YYYY-MM-DD (with --to)')
    .option('--to <date>', 'last date, YYYY-MM-DD (with --from)')
    .option('--job <name>', 'the journal-export job to check (needed when the config has several)')
    .option('--json', 'print the report as JSON')
    .option('--out <file>', 'write the differences as CSV to this file')
    .action(
      async (
        options: { period?: string; from?: string; to?: string; job?: string } & OutputOptions,
        command: Command,
      ) => {
        const scope = scopeOf(options);
        const loaded = await loadCliConfig(context, globalOptions(command).config);
        const registry = await buildPluginRegistry();
        const result = await couldNotRun(() =>
          runJournalReconcile(loaded, registry, { scope, job: options.job }),
        );
        await report(context, result, options);
      },
    );
}
