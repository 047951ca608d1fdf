/**
 * `supply-sync journal batches [--job NAME] [--json]` and `supply-sync journal drop-batch <batch-key> --job NAME`:
 * the batches journal-export jobs saved and have not finished, and the removal of one that cannot be read
 * (docs/accounting.md, "When a run stops on a saved batch").
 */
import { requiredArgument, type CommandSpec, type Invocation } from '../command-spec.js';
import type { CoreConfig } from '../../config/index.js';
import { JOURNAL_EXPORT_FLOW } from '../../flows/journal-export/index.js';
import {
  BatchKeptError,
  dropUnreadableBatch,
  savedBatches,
  type SavedBatch,
} from '../../flows/journal-export/saved-batches.js';
import { globalOptions, loadCliConfig } from '../context.js';
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

async function listBatches({
  context,
  options,
  command,
}: Invocation<{ job?: string; json?: boolean }>): Promise<void> {
  const { config } = await loadCliConfig(context, globalOptions(command));
  const jobs = journalJobs(config, options.job);
  const batches = await withState(
    () => openStateForReading(config.state),
    (state) => jobs.flatMap((job) => savedBatches(state, job)),
  );
  if (options.json) return context.output.line(JSON.stringify(batches, null, 2));
  if (batches.length === 0) return context.output.line('no saved batches: every run finished its batches');
  for (const batch of batches) context.output.line(describe(batch));
  if (batches.some((batch) => !batch.readable)) {
    context.output.line(
      'A batch that cannot be read stops its job. See docs/accounting.md, "When a run stops on a saved batch": check the books for its batch key, then `supply-sync journal drop-batch <batch-key> --job <job>`.',
    );
  }
}

async function dropBatch({
  context,
  args,
  options,
  command,
}: Invocation<{ job: string; newer?: boolean }>): Promise<void> {
  const batchKey = requiredArgument(args, 0);
  const { config } = await loadCliConfig(context, globalOptions(command));
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
}

export const JOURNAL_COMMANDS: CommandSpec = {
  name: 'journal',
  description: 'journal export: the batches a run saved and has not finished',
  subcommands: [
    {
      name: 'batches',
      description: 'saved batches of the journal-export jobs; the next run finishes each readable one',
      options: [
        { flags: '--job <name>', description: 'only this journal-export job' },
        { flags: '--json', description: 'print JSON' },
      ],
      run: listBatches,
    },
    {
      name: 'drop-batch',
      description:
        'remove a saved batch that cannot be read, after checking the books for it (a readable one is refused: the next run finishes it); stop the daemon first',
      arguments: [{ name: '<batch-key>', description: 'the batch key, as `journal batches` shows it' }],
      options: [
        { flags: '--job <name>', description: 'the journal-export job that saved it', required: true },
        {
          flags: '--newer',
          description:
            'also remove a batch in a form only a newer version reads (when none wrote it: damage)',
        },
      ],
      run: dropBatch,
    },
  ],
};
