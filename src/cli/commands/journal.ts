/**
 * `supply-sync journal batches [--job NAME] [--json]` and `supply-sync journal drop-batch <batch-key> --job NAME`:
 * the batches journal-export jobs saved and have not finished, and the removal of one that cannot be read
 * (docs/accounting.md, "When a run stops on a saved batch").
 */
import type { Command } from 'commander';
import type { CoreConfig } from '../../config/index.js';
import { JOURNAL_EXPORT_FLOW } from '../../flows/journal-export/index.js';
import {
  BatchKeptError,
  dropUnreadableBatch,
  savedBatches,
  type SavedBatch,
} from '../../flows/journal-export/saved-batches.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { openStateForReading, withState, withStateChange } from '../state-access.js';

/** The journal-export jobs of the config, or the one named, which must be one of them. */
function journalJobs(config: Pick<CoreConfig, 'jobs'>, only: string | undefined): string[] {
  const jobs = Object.entries(config.jobs)
    .filter(([, job]) => job.flow === JOURNAL_EXPORT_FLOW)
    .map(([name]) => name);
  if (only === undefined) return jobs;
  if (jobs.includes(only)) return [only];
  const known = jobs.length === 0 ? 'the config has none' : `the config has ${jobs.join(', ')}`;
  throw new CliError(`--job ${only} is not a journal-export job (${known})`, 'usage', EXIT_USAGE);
}

function describe(batch: SavedBatch): string {
  if (!batch.readable) return `${batch.job} ${batch.batchKey}: CANNOT BE READ: ${batch.damage}`;
  const periods = batch.periods.length === 0 ? '' : `, periods ${batch.periods.join(', ')}`;
  const stage = batch.written
    ? `in the books (${batch.location ?? 'no location'}), lines to be marked exported`
    : 'to be written';
  return `${batch.job} ${batch.batchKey}: saved ${batch.savedAt}, ${batch.lines} lines, ${batch.entries} entries${periods}; ${stage}`;
}

export function registerJournalCommands(program: Command, context: CliContext): void {
  const journal = program
    .command('journal')
    .description('journal export: the batches a run saved and has not finished');

  journal
    .command('batches')
    .description('saved batches of the journal-export jobs; the next run finishes each readable one')
    .option('--job <name>', 'only this journal-export job')
    .option('--json', 'print JSON')
    .action(async (options: { job?: string; json?: boolean }, command: Command) => {
      const { config } = await loadCliConfig(context, globalOptions(command).config);
      const jobs = journalJobs(config, options.job);
      const batches = await withState(
        () => openStateForReading(config.state),
        (state) => jobs.flatMap((job) => savedBatches(state, job)),
      );
      if (options.json) return context.output.line(JSON.stringify(batches, null, 2));
      if (batches.length === 0)
        return context.output.line('no saved batches: every run finished its batches');
      for (const batch of batches) context.output.line(describe(batch));
      if (batches.some((batch) => !batch.readable)) {
        context.output.line(
          'A batch that cannot be read stops its job. See docs/accounting.md, "When a run stops on a saved batch": check the books for its batch key, then `supply-sync journal drop-batch <batch-key> --job <job>`.',
        );
      }
    });

  journal
    .command('drop-batch')
    .argument('<batch-key>', 'the batch key, as `journal batches` shows it')
    .requiredOption('--job <name>', 'the journal-export job that saved it')
    .option(
      '--newer',
      'also remove a batch in a form only a newer version reads (when none wrote it: damage)',
    )
    .description(
      'remove a saved batch that cannot be read, after checking the books for it (a readable one is refused: the next run finishes it); stop the daemon first',
    )
    .action(async (batchKey: string, options: { job: string; newer?: boolean }, command: Command) => {
      const { config } = await loadCliConfig(context, globalOptions(command).config);
      const [job] = journalJobs(config, options.job);
      if (job === undefined)
        throw new CliError(`--job ${options.job} is not a journal-export job`, 'usage', EXIT_USAGE);
      let removed: boolean;
      try {
        removed = await withStateChange(config, 'journal drop-batch', (state) =>
          dropUnreadableBatch(state, job, batchKey, { newer: options.newer === true }),
        );
      } catch (error) {
        if (error instanceof BatchKeptError) throw new CliError(error.message, 'batch_kept');
        throw error;
      }
      if (!removed) {
        throw new CliError(
          `job ${job} has no saved batch ${batchKey}; see \`supply-sync journal batches\``,
          'batch_not_found',
        );
      }
      context.output.line(
        `saved batch ${batchKey} of job ${job} removed; its next run plans the lines still approved for export afresh`,
      );
    });
}
