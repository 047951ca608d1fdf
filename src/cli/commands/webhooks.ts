/** `supply-sync webhooks register|test|recover`: the API side of receiving webhooks. */
import type { Command } from 'commander';
import { webhookApiFromClient, type WebhookApi } from '../../webhooks/index.js';
import type { LoadedConfig } from '../../config/index.js';
import {
  carryOutEffect,
  type EffectContext,
  type RecoverCounts,
  type RegisterResult,
  type TestResult,
} from '../../daemon/control/effect-actions.js';
import { giveCommand, giveStateCommand, requestedByCli, type Given } from '../control.js';
import { openApi } from '../../api-access/index.js';
import { globalOptions, loadCliConfig, type CliContext } from '../context.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { cliWriteFence } from '../api-fence.js';
import { withStateChange } from '../state-access.js';
import type { StateStore } from '../../state/index.js';

/** What a webhook action needs here, when no daemon holds the state. */
function effectContext(loaded: LoadedConfig, state: StateStore, api: WebhookApi): EffectContext {
  return {
    state,
    file: loaded.file,
    jobs: Object.keys(loaded.config.jobs),
    by: requestedByCli(),
    runJob: () => Promise.reject(new Error('a webhook command runs no job')),
    webhookApi: () => api,
  };
}

function resultOf<R>(given: Given<R>): R {
  if (given.via === 'queued') throw new Error('a webhook command is always waited for');
  return given.result;
}

export function registerWebhookCommands(program: Command, context: CliContext): void {
  const webhooks = program
    .command('webhooks')
    .description('register the webhook endpoint, send a test ping, recover missed deliveries');

  const withApi = async <T>(command: Command, use: (state: StateStore, api: WebhookApi) => Promise<T>) => {
    const { config } = await loadCliConfig(context, globalOptions(command).config);
    if (config.api.sandbox === 'embedded') {
      // An embedded sandbox lives only as long as this command: an endpoint registered in it would vanish at once.
      throw new CliError(
        'webhook commands need a lasting API; with `api.sandbox: embedded` run `supply-sync sandbox` and point api.base_url at it',
        'usage',
        EXIT_USAGE,
      );
    }
    // On a shared state the command holds the leadership lease, and its API writes are fenced to that term.
    const fence = cliWriteFence(config, `webhooks ${command.name()}`);
    const access = await openApi(config, { extras: { beforeWrite: fence.beforeWrite } });
    try {
      if (config.state.url === undefined) {
        return await withStateChange(config, `webhooks ${command.name()}`, (state) =>
          use(state, webhookApiFromClient(access.api.webhooks)),
        );
      }
      return await fence.during((state) =>
        use(state ?? unreachable(), webhookApiFromClient(access.api.webhooks)),
      );
    } finally {
      await access.close();
    }
  };

  webhooks
    .command('register')
    .description(
      'create or update the endpoint for --url; its signing secret goes into the state file, never to the screen',
    )
    .requiredOption('--url <url>', "public https URL that reaches this daemon's webhook path")
    .requiredOption('--events <list>', 'comma-separated event types, e.g. order.created,order.updated')
    .option('--description <text>', 'label shown in the product settings')
    .action(async (options: { url: string; events: string; description?: string }, command: Command) => {
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      const action = {
        kind: 'webhooks.register' as const,
        url: options.url,
        events: options.events
          .split(',')
          .map((e) => e.trim())
          .filter(Boolean),
        ...(options.description === undefined ? {} : { description: options.description }),
      };
      const given = await giveCommand(context, {
        loaded,
        action,
        direct: () =>
          withApi(command, (state, api) => carryOutEffect(action, effectContext(loaded, state, api))),
      });
      const result = resultOf(given) as RegisterResult;
      context.output.line(
        `${result.created ? 'created' : 'updated'} webhook endpoint ${result.endpoint.id} for ${result.endpoint.url} (${result.endpoint.status})`,
      );
    });

  webhooks
    .command('retire-secrets')
    .description(
      'after a secret rotation: keep only the newest signing secret of each endpoint in the state file',
    )
    .action(async (_options: unknown, command: Command) => {
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      const given = await giveStateCommand(
        context,
        loaded,
        { kind: 'webhooks.retire-secrets' },
        'webhooks retire-secrets',
      );
      const { retired } = resultOf(given) as { retired: number };
      context.output.line(`retired ${retired} older signing secret${retired === 1 ? '' : 's'}`);
    });

  webhooks
    .command('test')
    .argument('[endpoint]', 'endpoint id (default: the one registered)')
    .description('ask the API to send a signed ping and show what our endpoint answered')
    .action(async (endpoint: string | undefined, _options: unknown, command: Command) => {
      const loaded = await loadCliConfig(context, globalOptions(command).config);
      const action = { kind: 'webhooks.test' as const, ...(endpoint === undefined ? {} : { endpoint }) };
      // With a daemon running, the daemon asks for the ping: it is the one that answers it.
      const given = await giveCommand(context, {
        loaded,
        action,
        direct: () =>
          withApi(command, (state, api) => carryOutEffect(action, effectContext(loaded, state, api))),
      });
      const delivery = resultOf(given) as TestResult;
      context.output.line(
        `ping ${delivery.status}: endpoint answered ${delivery.response_status ?? 'nothing'}${delivery.error ? ` (${delivery.error})` : ''}`,
      );
      if (delivery.status !== 'succeeded')
        throw new CliError('the test delivery did not succeed', 'webhook_test_failed');
    });

  webhooks
    .command('recover')
    .argument('[endpoint]', 'endpoint id (default: the one registered)')
    .option(
      '--since <time>',
      'only deliveries attempted since this ISO time (e.g. when the daemon went down)',
    )
    .option('--dry-run', 'list what would be redelivered')
    .description(
      'after downtime: re-activate the endpoint and ask for redelivery of events whose delivery failed',
    )
    .action(
      async (
        endpoint: string | undefined,
        options: { since?: string; dryRun?: boolean },
        command: Command,
      ) => {
        const since = options.since === undefined ? undefined : new Date(options.since);
        if (since !== undefined && Number.isNaN(since.getTime())) {
          throw new CliError(
            `--since: expected an ISO time like 2026-06-01T08:00:00Z, got "${options.since}"`,
            'usage',
            EXIT_USAGE,
          );
        }
        const loaded = await loadCliConfig(context, globalOptions(command).config);
        const action = {
          kind: 'webhooks.recover' as const,
          ...(endpoint === undefined ? {} : { endpoint }),
          ...(since === undefined ? {} : { since: since.toISOString() }),
          dryRun: options.dryRun === true,
        };
        const given = await giveCommand(context, {
          loaded,
          action,
          direct: () =>
            withApi(command, (state, api) => carryOutEffect(action, effectContext(loaded, state, api))),
        });
        const result = resultOf(given) as RecoverCounts;
        if (result.reactivated) context.output.line('endpoint re-activated');
        context.output.line(
          `${result.failed} failed deliveries; ${options.dryRun ? 'would redeliver' : 'redelivered'} ` +
            `${options.dryRun ? result.failed - result.skippedStored : result.redelivered}; ` +
            `${result.skippedStored} already stored`,
        );
      },
    );
}

function unreachable(): never {
  throw new Error('a fenced CLI change on a shared state runs with its state');
}
