/** `supply-sync webhooks register|test|recover`: the API side of receiving webhooks. */
import type { Command } from 'commander';
import type { CommandSpec, Invocation } from '../command-spec.js';
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
import type { ControlAction } from '../../daemon/control/actions.js';

/** What a webhook action needs here, when no daemon holds the state. */
function effectContext(loaded: LoadedConfig, state: StateStore, api: WebhookApi): EffectContext {
  return {
    state,
    file: loaded.file,
    jobs: Object.keys(loaded.config.jobs),
    by: requestedByCli(),
    timeZone: loaded.config.timezone,
    runJob: () => Promise.reject(new Error('a webhook command runs no job')),
    webhookApi: () => api,
  };
}

function resultOf<R>(given: Given<R>): R {
  if (given.via === 'queued') throw new Error('a webhook command is always waited for');
  return given.result;
}

/** Runs `use` with the state and the webhook API, fenced to the leadership term on a shared state. */
async function withApi<T>(
  context: CliContext,
  command: Command,
  use: (state: StateStore, api: WebhookApi) => Promise<T>,
): Promise<T> {
  const { config } = await loadCliConfig(context, globalOptions(command));
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
}

/** Gives a webhook action to a running daemon, or carries it out here when none holds the state. */
async function giveWebhookAction<R>({ context, command }: Invocation, action: ControlAction): Promise<R> {
  const loaded = await loadCliConfig(context, globalOptions(command));
  const given = await giveCommand(context, {
    loaded,
    action,
    direct: () =>
      withApi(context, command, (state, api) => carryOutEffect(action, effectContext(loaded, state, api))),
  });
  return resultOf(given) as R;
}

async function register(
  invocation: Invocation<{ url: string; events: string; description?: string }>,
): Promise<void> {
  const { options } = invocation;
  const result = await giveWebhookAction<RegisterResult>(invocation, {
    kind: 'webhooks.register',
    url: options.url,
    events: options.events
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean),
    ...(options.description === undefined ? {} : { description: options.description }),
  });
  invocation.context.output.line(
    `${result.created ? 'created' : 'updated'} webhook endpoint ${result.endpoint.id} for ${result.endpoint.url} (${result.endpoint.status})`,
  );
}

async function retireSecrets({ context, command }: Invocation): Promise<void> {
  const loaded = await loadCliConfig(context, globalOptions(command));
  const given = await giveStateCommand(
    context,
    loaded,
    { kind: 'webhooks.retire-secrets' },
    'webhooks retire-secrets',
  );
  const { retired } = resultOf(given) as { retired: number };
  context.output.line(`retired ${retired} older signing secret${retired === 1 ? '' : 's'}`);
}

async function testEndpoint(invocation: Invocation): Promise<void> {
  const [endpoint] = invocation.args;
  // With a daemon running, the daemon asks for the ping: it is the one that answers it.
  const delivery = await giveWebhookAction<TestResult>(invocation, {
    kind: 'webhooks.test',
    ...(endpoint === undefined ? {} : { endpoint }),
  });
  invocation.context.output.line(
    `ping ${delivery.status}: endpoint answered ${delivery.response_status ?? 'nothing'}${delivery.error ? ` (${delivery.error})` : ''}`,
  );
  if (delivery.status !== 'succeeded') {
    const path = loadedWebhookPath(invocation);
    throw new CliError(failedPingAdvice(delivery, await path), 'webhook_test_failed');
  }
}

async function loadedWebhookPath({ context, command }: Invocation): Promise<string> {
  return (await loadCliConfig(context, globalOptions(command))).config.server.webhook_path;
}

/** What to look at next, by how the ping failed: no connection at all, or an answer that was not 2xx. */
function failedPingAdvice(delivery: TestResult, webhookPath: string): string {
  const again = 'then run `supply-sync webhooks test` again';
  if (delivery.response_status === null) {
    return (
      'the test delivery did not succeed: the API reached nothing at the registered URL. Check that the daemon ' +
      `runs and that the URL reaches its webhook path (${webhookPath}, server.webhook_path) through your proxy, ` +
      `or register the right URL with \`supply-sync webhooks register --url ...\`; ${again}`
    );
  }
  const answered = `the test delivery did not succeed: the endpoint answered ${delivery.response_status}`;
  const reason = /"error":"([a-z_]+)"/.exec(delivery.response_snippet ?? '')?.[1];
  if (reason === 'signature_mismatch' || reason === 'no_signature' || reason === 'no_active_secret') {
    return (
      `${answered} (${reason}): the daemon does not hold the endpoint's current signing secret. Register again ` +
      `with \`supply-sync webhooks register --url ...\` (the daemon keeps the new secret); ${again}`
    );
  }
  if (reason === 'timestamp_out_of_tolerance') {
    return `${answered} (${reason}): this machine's clock is off; set up time sync (NTP), ${again}`;
  }
  return (
    `${answered}${reason === undefined ? '' : ` (${reason})`}: check that the URL reaches the daemon's webhook ` +
    `path (${webhookPath}, server.webhook_path) and not another service; ${again}`
  );
}

function sinceOption(since: string | undefined): Date | undefined {
  const parsed = since === undefined ? undefined : new Date(since);
  if (parsed !== undefined && Number.isNaN(parsed.getTime())) {
    throw new CliError(
      `--since: expected an ISO time like 2026-06-01T08:00:00Z, got "${since}"`,
      'usage',
      EXIT_USAGE,
    );
  }
  return parsed;
}

async function recover(invocation: Invocation<{ since?: string; dryRun?: boolean }>): Promise<void> {
  const { options } = invocation;
  const [endpoint] = invocation.args;
  const since = sinceOption(options.since);
  const result = await giveWebhookAction<RecoverCounts>(invocation, {
    kind: 'webhooks.recover',
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(since === undefined ? {} : { since: since.toISOString() }),
    dryRun: options.dryRun === true,
  });
  const { output } = invocation.context;
  if (result.reactivated) output.line('endpoint re-activated');
  output.line(
    `${result.failed} failed deliveries; ${options.dryRun ? 'would redeliver' : 'redelivered'} ` +
      `${options.dryRun ? result.failed - result.skippedStored : result.redelivered}; ` +
      `${result.skippedStored} already stored`,
  );
}

const ENDPOINT_ARGUMENT = { name: '[endpoint]', description: 'endpoint id (default: the one registered)' };

export const WEBHOOK_COMMANDS: CommandSpec = {
  name: 'webhooks',
  description: 'register the webhook endpoint, send a test ping, recover missed deliveries',
  subcommands: [
    {
      name: 'register',
      description:
        'create or update the endpoint for --url; its signing secret goes into the state file, never to the screen',
      options: [
        {
          flags: '--url <url>',
          description: "public https URL that reaches this daemon's webhook path",
          required: true,
        },
        {
          flags: '--events <list>',
          description: 'comma-separated event types, e.g. order.created,order.updated',
          required: true,
        },
        { flags: '--description <text>', description: 'label shown in the product settings' },
      ],
      run: register,
    },
    {
      name: 'retire-secrets',
      description:
        'after a secret rotation: keep only the newest signing secret of each endpoint in the state file',
      run: retireSecrets,
    },
    {
      name: 'test',
      description: 'ask the API to send a signed ping and show what our endpoint answered',
      arguments: [ENDPOINT_ARGUMENT],
      run: testEndpoint,
    },
    {
      name: 'recover',
      description:
        'after downtime: re-activate the endpoint and ask for redelivery of events whose delivery failed',
      arguments: [ENDPOINT_ARGUMENT],
      options: [
        {
          flags: '--since <time>',
          description: 'only deliveries attempted since this ISO time (e.g. when the daemon went down)',
        },
        { flags: '--dry-run', description: 'list what would be redelivered' },
      ],
      run: recover,
    },
  ],
};

function unreachable(): never {
  throw new Error('a fenced CLI change on a shared state runs with its state');
}
