/**
 * `supply-sync catalog remove --skus-file FILE [--dry-run]`: deletes products the daemon never pushed itself
 * (see flows/catalog/remove-listed.ts), one line of output per SKU.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { CommandSpec, Invocation } from '../command-spec.js';
import {
  parseSkuList,
  removeListedProducts,
  SkuListError,
  trackerOf,
  type RemovalResult,
  type RemovalRun,
} from '../../flows/catalog/remove-listed.js';
import type { StateLocation, StateStore } from '../../state/index.js';
import { openApi } from '../../api-access/index.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { CliError, EXIT_USAGE, scrub } from '../errors.js';
import { cliWriteFence } from '../api-fence.js';
import { openStateForReading, withStateChange } from '../state-access.js';
import { giveCommand } from '../control.js';
import type { Config, LoadedConfig } from '../../config/index.js';

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

function describe(result: RemovalResult): string {
  switch (result.outcome) {
    case 'deleted':
      return `deleted       ${result.sku}`;
    case 'already_gone':
      return `already gone  ${result.sku} (404: no live product with this SKU)`;
    case 'would_delete':
      return `would delete  ${result.sku} (unless already gone)`;
    case 'skipped':
      return `skipped       ${result.sku} (${result.reason ?? ''})`;
    case 'failed':
      return `failed        ${result.sku} (${result.reason ?? ''})`;
  }
}

/**
 * The API has no read of a supplier's catalog (docs/contract-gaps.md): only the real run's 404 tells a SKU not in
 * the catalog, so the dry run must not promise more than that.
 */
const NO_CATALOG_READ =
  'a SKU not in the catalog shows as already gone only in the real run: the API offers a supplier no read of its own catalog';

function summary(run: RemovalRun, dryRun: boolean): string {
  const n = (outcome: RemovalResult['outcome']): number =>
    run.results.filter((result) => result.outcome === outcome).length;
  if (dryRun)
    return (
      `dry run: would delete ${n('would_delete')} unless already gone, skipped ${n('skipped')}; nothing was sent\n` +
      NO_CATALOG_READ
    );
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
    throw missingState(error);
  }
}

function missingState(error: unknown): unknown {
  if (!(error instanceof CliError && error.code === 'state_missing')) return error;
  return new CliError(
    `state.path: ${error.message}. catalog remove reads it to leave alone the SKUs the daemon synced; ` +
      "point state.path at the daemon's state file, or pass --no-state-check to delete without that check",
    'state_missing',
    EXIT_USAGE,
  );
}

interface RemoveOptions {
  skusFile: string;
  dryRun?: boolean;
  stateCheck: boolean;
}

/** A dry run sends nothing and only reads the state: no need to ask a running daemon. */
async function dryRunHere(
  config: Config,
  skus: readonly string[],
  stateCheck: boolean,
  report: (result: RemovalResult) => void,
): Promise<RemovalRun> {
  const state = stateCheck ? openDaemonState(config.state) : undefined;
  try {
    return await removeListedProducts({
      api: { deleteProduct: () => Promise.reject(new Error('a dry run sends nothing')) },
      skus,
      dryRun: true,
      trackedBy: trackerOf(state),
      onResult: report,
    });
  } finally {
    state?.close();
  }
}

/** With a daemon holding the state, the daemon sends the deletions and checks its own state. */
async function removeViaDaemonOrHere(
  context: CliContext,
  loaded: LoadedConfig,
  skus: string[],
  stateCheck: boolean,
  report: (result: RemovalResult) => void,
): Promise<RemovalRun> {
  const given = await giveCommand(context, {
    loaded,
    action: { kind: 'catalog.remove', skus, stateCheck },
    direct: () => removeHere(loaded.config, skus, stateCheck, report),
  });
  if (given.via === 'queued') throw new Error('catalog remove is always waited for');
  if (given.via === 'daemon') for (const result of given.result.results) report(result);
  return given.result;
}

function throwOnFailures(run: RemovalRun, skus: readonly string[]): void {
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
}

async function removeListed({ context, options, command }: Invocation<RemoveOptions>): Promise<void> {
  const loaded = await loadCliConfig(context, globalOptions(command));
  const { config } = loaded;
  const skus = readSkus(options.skusFile);
  const dryRun = options.dryRun === true;
  if (config.api.sandbox === 'embedded') {
    throw new CliError(
      'catalog remove needs a lasting API; with `api.sandbox: embedded` there is no catalog to remove from',
      'usage',
      EXIT_USAGE,
    );
  }
  if (!options.stateCheck) context.output.line(NO_STATE_CHECK_NOTE);
  const report = (result: RemovalResult): void =>
    context.output.line(scrub(describe(result), context.secrets));
  const run = dryRun
    ? await dryRunHere(config, skus, options.stateCheck, report)
    : await removeViaDaemonOrHere(context, loaded, skus, options.stateCheck, report);
  context.output.line(summary(run, dryRun));
  throwOnFailures(run, skus);
}

export const CATALOG_COMMANDS: CommandSpec = {
  name: 'catalog',
  description: 'catalog maintenance the daemon does not do by itself',
  subcommands: [
    {
      name: 'remove',
      description:
        'delete (soft) the products listed in a file, one SKU a line: for products the daemon never pushed ' +
        'itself, which it does not remove. Run with --dry-run first',
      options: [
        {
          flags: '--skus-file <file>',
          description: 'text file with one SKU a line (# starts a comment line)',
          required: true,
        },
        { flags: '--dry-run', description: 'print what would be deleted; send nothing' },
        {
          flags: '--no-state-check',
          description:
            "proceed without the daemon's state file (state.path): SKUs the daemon synced are deleted too",
        },
      ],
      run: removeListed,
    },
  ],
};

/**
 * The deletions sent from here, no daemon running. The state is opened for a change (a state file's lock; on a
 * PostgreSQL state the leadership lease, to which the deletions are fenced): while a daemon holds it this rejects
 * before anything is sent, and the command goes to the daemon instead. So does it with --no-state-check, which only
 * leaves the daemon's record of synced SKUs unread; without a state file there is no daemon to ask.
 */
async function removeHere(
  config: Config,
  skus: readonly string[],
  stateCheck: boolean,
  report: (result: RemovalResult) => void,
): Promise<RemovalRun> {
  const fence = cliWriteFence(config, 'catalog remove');
  const access = await openApi(config, { extras: { beforeWrite: fence.beforeWrite } });
  try {
    const remove = (state: StateStore | undefined) =>
      removeListedProducts({
        api: { deleteProduct: (sku, callOptions) => access.api.catalog.deleteProduct(sku, callOptions) },
        skus,
        dryRun: false,
        trackedBy: trackerOf(stateCheck ? state : undefined),
        onResult: report,
      });
    if (config.state.url !== undefined) return await fence.during(remove);
    if (!stateCheck && !existsSync(config.state.path)) return await remove(undefined);
    try {
      return await withStateChange(config, 'catalog remove', remove);
    } catch (error) {
      throw missingState(error);
    }
  } finally {
    await access.close();
  }
}
