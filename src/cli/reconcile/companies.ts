/**
 * `reconcile journal --all`: every company of an office, one after the other. A company that cannot be checked (its
 * books folder gone, its key refused) is reported as such and the others are still checked; the exit code is 2 when
 * one could not be checked, else 1 when one has differences, else 0.
 */
import type { LoadedConfig } from '../../config/index.js';
import { DIFFERENCE_CSV_HEADER, differenceRow, type ReconcileReport } from '../../flows/reconcile/index.js';
import { writeFileAtomic } from '../../kit/atomic-file.js';
import { formatCsv } from '../../kit/csv.js';
import { scrubSecrets } from '../../log/index.js';
import type { CliContext } from '../context.js';
import { CliError, EXIT_FAILURE, EXIT_USAGE } from '../errors.js';
import { reportText } from './format.js';

export type CompanyReconcile =
  | { readonly company: string; readonly report: ReconcileReport }
  | { readonly company: string; readonly error: string };

const nameOf = (loaded: LoadedConfig): string => loaded.company?.name ?? loaded.file;

export async function reconcileCompanies(
  companies: readonly LoadedConfig[],
  check: (loaded: LoadedConfig) => Promise<ReconcileReport>,
): Promise<CompanyReconcile[]> {
  const results: CompanyReconcile[] = [];
  for (const loaded of companies) {
    try {
      results.push({ company: nameOf(loaded), report: await check(loaded) });
    } catch (error) {
      results.push({
        company: nameOf(loaded),
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
  return results;
}

function outcomeOf(result: CompanyReconcile): 'match' | 'differences' | 'could_not_run' {
  if ('error' in result) return 'could_not_run';
  return result.report.differences.length === 0 ? 'match' : 'differences';
}

/** Every company's report, a summary line, the CSV of every difference with its company, and the exit code. */
export async function reportCompanies(
  context: CliContext,
  results: readonly CompanyReconcile[],
  options: { json?: boolean; out?: string },
): Promise<void> {
  const scrub = (text: string): string => scrubSecrets(text, context.secrets);
  if (options.out !== undefined) await writeFileAtomic(options.out, companiesCsv(results));
  if (options.json === true) {
    const shown = results.map((result) =>
      'error' in result
        ? { company: result.company, outcome: outcomeOf(result), error: scrub(result.error) }
        : { company: result.company, outcome: outcomeOf(result), ...result.report },
    );
    context.output.line(JSON.stringify({ companies: shown }, null, 2));
  } else {
    for (const result of results) {
      context.output.line(`== ${result.company}: ${outcomeOf(result).replaceAll('_', ' ')}`);
      const lines = 'error' in result ? [`could not run: ${scrub(result.error)}`] : reportText(result.report);
      for (const line of lines) context.output.line(line);
      context.output.line('');
    }
  }
  const count = (outcome: string) => results.filter((result) => outcomeOf(result) === outcome).length;
  const summary =
    `${results.length} companies: ${count('match')} match, ${count('differences')} with differences, ` +
    `${count('could_not_run')} could not be checked`;
  if (count('could_not_run') > 0) throw new CliError(summary, 'reconcile_failed', EXIT_USAGE);
  if (count('differences') > 0) throw new CliError(summary, 'differences_found', EXIT_FAILURE);
  context.output.note(summary);
}

function companiesCsv(results: readonly CompanyReconcile[]): string {
  const rows = results.flatMap((result) =>
    'error' in result
      ? []
      : result.report.differences.map((difference) => [result.company, ...differenceRow(difference)]),
  );
  return formatCsv([['company', ...DIFFERENCE_CSV_HEADER], ...rows], ',');
}
