/**
 * `supply-sync catalog remove --skus-file FILE [--dry-run]`: deletes products the daemon never pushed itself
 * (see flows/catalog/remove-listed.ts), one line of output per SKU.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  parseSkuList,
  removeListedProducts,
  SkuListError,
  type RemovalResult,
  type RemovalRun,
} from '../../flows/catalog/remove-listed.js';
import type { StateLocation, StateStore } from '../../state/index.js';
import { openApi } from '../../api-access/index.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { CliError, EXIT_USAGE, scrub } from '../errors.js';
import { cliWriteFence } from '../api-fence.js';
import { openStateForReading } from '../state-access.js';

function readSkus(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new CliError(`--skus-file ${file} cannot be read (${reason})`, 'usage', EXIT_USAGE);
  }
  try {
    return parseSkuList(text, file);
  } catch (error) {
    if (error instanceof SkuListError) throw new CliError(error.message, 'usage', EXIT_USAGE);
    throw error;
  }
}

/** A catalog job's product hashes or pending product intents: `<job>:products` or `<job>:products:pending`. */
const PRODUCT_FLOW = /^(.+):products(?::pending)?$/;

/**
 * The job whose state records the SKU (stored hash or pending intent), if any. Every catalog job found in the
 * state counts, also one no longer in the config: its hashes still tell the daemon the API holds the SKU.
 */
function trackerOf(state: StateStore | undefined): (sku: string) => string | undefined {
  if (state === undefined) return () => undefined;
  const productFlows = state.hashes
    .flows()
    .map((flow) => ({ flow, job: PRODUCT_FLOW.exec(flow)?.[1] }))
    .filter((entry): entry is { flow: string; job: string } => entry.job !== undefined);
  return (sku) => productFlows.find(({ flow }) => state.hashes.get(flow, sku) !== undefined)?.job;
}

function describe(result: RemovalResult): string {
  switch (result.outcome) {
    case 'deleted':
      return `deleted       ${result.sku}`;
    case 'already_gone':
      return `already gone  ${result.sku} (404: no live product with this SKU)`;
    case 'would_delete':
      return `would delete  ${result.sku}`;
    case 'skipped':
      return `skipped       ${result.sku} (${result.reason ?? ''})`;
    case 'failed':
      return `failed        ${result.sku} (${result.reason ?? ''})`;
  }
}

function summary(run: RemovalRun, dryRun: boolean): string {
  const n = (outcome: RemovalResult['outcome']): number =>
    run.results.filter((result) => result.outcome === outcome).length;
  if (dryRun) return `dry run: would delete ${n('would_delete')}, skipped ${n('skipped')}; nothing was sent`;
  const counts = `deleted ${n('deleted')}, already gone ${n('already_gone')}, skipped ${n('skipped')}, failed ${n('failed')}`;
  return run.refused === undefined ? counts : `${counts}, not sent ${run.refused.unsent}`;
}

const NO_STATE_CHECK_NOTE =
  'state check off (--no-state-check): SKUs the daemon synced are not recognised and are deleted too; ' +
  'the daemon will not send them again while its state holds their hashes';

/** The daemon's state, read-only; a missing file is an error naming `state.path`, never "nothing tracked". */
function openDaemonState(location: StateLocation): StateStore {
  try {
    return openStateForReading(location);
  } catch (error) {
    if (error instanceof CliError && error.code === 'state_missing') {
      throw new CliError(
        `state.path: ${error.message}. catalog remove reads it to leave alone the SKUs the daemon synced; ` +
          "point state.path at the daemon's state file, or pass --no-state-check to delete without that check",
        'state_missing',
        EXIT_USAGE,
      );
    }
    throw error;
  }
}

export function registerCatalogCommands(program: Command, context: CliContext): void {
  const catalog = program
    .command('catalog')
    .description('catalog maintenance the daemon does not do by itself');

  catalog
    .command('remove')
    .description(
      'delete (soft) the products listed in a file, one SKU a line: for products the daemon never pushed ' +
        'itself, which it does not remove. Run with --dry-run first',
    )
    .requiredOption('--skus-file <file>', 'text file with one SKU a line (# starts a comment line)')
    .option('--dry-run', 'print what would be deleted; send nothing')
    .option(
      '--no-state-check',
      "proceed without the daemon's state file (state.path): SKUs the daemon synced are deleted too",
    )
    .action(
      async (options: { skusFile: string; dryRun?: boolean; stateCheck: boolean }, command: Command) => {
        const { config } = await loadCliConfig(context, globalOptions(command).config);
        const skus = readSkus(options.skusFile);
        const dryRun = options.dryRun === true;
        if (config.api.sandbox === 'embedded') {
          throw new CliError(
            'catalog remove needs a lasting API; with `api.sandbox: embedded` there is no catalog to remove from',
            'usage',
            EXIT_USAGE,
          );
        }
        const state = options.stateCheck ? openDaemonState(config.state) : undefined;
        if (state === undefined) context.output.line(NO_STATE_CHECK_NOTE);
        try {
          // On a shared state the deletions hold the leadership lease and are fenced to its term.
          const fence = cliWriteFence(config, 'catalog remove');
          const access = dryRun ? undefined : await openApi(config, {}, { beforeWrite: fence.beforeWrite });
          try {
            const remove = () =>
              removeListedProducts({
                api: {
                  deleteProduct: (sku, callOptions) => {
                    if (access === undefined) throw new Error('a dry run sends nothing');
                    return access.api.catalog.deleteProduct(sku, callOptions);
                  },
                },
                skus,
                dryRun,
                trackedBy: trackerOf(state),
                onResult: (result) => context.output.line(scrub(describe(result), context.secrets)),
              });
            const run = dryRun ? await remove() : await fence.during(remove);
            context.output.line(summary(run, dryRun));
            if (run.refused !== undefined) {
              const { status, code, unsent } = run.refused;
              throw new CliError(
                `the API refused api.api_key (${status} ${code}); stopped at the first refusal, ${unsent} SKUs not sent`,
                'remove_failed',
              );
            }
            const failed = run.results.filter((result) => result.outcome === 'failed').length;
            if (failed > 0)
              throw new CliError(`${failed} of ${skus.length} deletions failed (see above)`, 'remove_failed');
          } finally {
            await access?.close();
          }
        } finally {
          state?.close();
        }
      },
    );
}
