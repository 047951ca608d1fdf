/**
 * `supply-sync catalog remove --skus-file FILE [--dry-run]`: deletes products the daemon never pushed itself
 * (see flows/catalog/remove-listed.ts), one line of output per SKU.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { Config } from '../../config/index.js';
import { CATALOG_FLOW } from '../../flows/catalog/index.js';
import { pendingFlow } from '../../flows/catalog/intents.js';
import { hashFlow } from '../../flows/catalog/push-context.js';
import {
  parseSkuList,
  removeListedProducts,
  SkuListError,
  type RemovalResult,
} from '../../flows/catalog/remove-listed.js';
import type { StateStore } from '../../state/index.js';
import { openApi } from '../api-access.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { CliError, EXIT_USAGE, scrub } from '../errors.js';
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

/** The catalog job whose state records the SKU (stored hash or pending intent), if any. */
function trackerOf(config: Config, state: StateStore | undefined): (sku: string) => string | undefined {
  const jobs = Object.entries(config.jobs)
    .filter(([, job]) => job.flow === CATALOG_FLOW)
    .map(([name]) => name);
  return (sku) =>
    state === undefined
      ? undefined
      : jobs.find(
          (job) =>
            state.hashes.get(hashFlow(job, 'products'), sku) !== undefined ||
            state.hashes.get(pendingFlow(job, 'products'), sku) !== undefined,
        );
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

function summary(results: readonly RemovalResult[], dryRun: boolean): string {
  const n = (outcome: RemovalResult['outcome']): number =>
    results.filter((result) => result.outcome === outcome).length;
  if (dryRun) return `dry run: would delete ${n('would_delete')}, skipped ${n('skipped')}; nothing was sent`;
  return `deleted ${n('deleted')}, already gone ${n('already_gone')}, skipped ${n('skipped')}, failed ${n('failed')}`;
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
    .action(async (options: { skusFile: string; dryRun?: boolean }, command: Command) => {
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
      const state = existsSync(config.state.path) ? openStateForReading(config.state.path) : undefined;
      try {
        const access = dryRun ? undefined : await openApi(config);
        try {
          const results = await removeListedProducts({
            api: {
              deleteProduct: (sku, callOptions) => {
                if (access === undefined) throw new Error('a dry run sends nothing');
                return access.api.catalog.deleteProduct(sku, callOptions);
              },
            },
            skus,
            dryRun,
            trackedBy: trackerOf(config, state),
            onResult: (result) => context.output.line(scrub(describe(result), context.secrets)),
          });
          context.output.line(summary(results, dryRun));
          const failed = results.filter((result) => result.outcome === 'failed').length;
          if (failed > 0)
            throw new CliError(`${failed} of ${skus.length} deletions failed (see above)`, 'remove_failed');
        } finally {
          await access?.close();
        }
      } finally {
        state?.close();
      }
    });
}
