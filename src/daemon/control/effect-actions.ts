/** The actions with an effect outside the state: a run of a job, a call to the API's webhook endpoints. */
import type { RunResult } from '../../engine/index.js';
import {
  WebhookSecretStore,
  recoverWebhookDeliveries,
  registerWebhook,
  testWebhook,
  type WebhookApi,
  type WebhookDelivery,
} from '../../webhooks/index.js';
import type { CatalogApi } from '../../flows/catalog/api.js';
import { removeListedProducts, trackerOf, type RemovalRun } from '../../flows/catalog/remove-listed.js';
import { ControlError, type ControlAction } from './actions.js';
import { removeKeyedByCommand } from './keyed-removal.js';
import { commandKey, registerKeyedByCommand } from './keyed-registration.js';
import { requireNotPaused } from './paused-refusal.js';
import { requireJob, type StateActionContext } from './state-actions.js';

export interface EffectContext extends StateActionContext {
  /** Runs the job once now and resolves with its result. */
  readonly runJob: (job: string) => Promise<RunResult>;
  readonly webhookApi: () => WebhookApi;
  /** The daemon's API client for `catalog remove` (the CLI carries out its own without a daemon). */
  readonly catalogApi?: () => Pick<CatalogApi['catalog'], 'deleteProduct'>;
  /** The queued command carried out: its id keys the API calls that must not be made twice. */
  readonly command?: { readonly id: number; readonly requestedAt: number; readonly takenBefore: boolean };
}

export interface SyncResult {
  job: string;
  outcome: RunResult['outcome'];
  counts: Record<string, number>;
  error: string | null;
}

export interface RegisterResult {
  created: boolean;
  endpoint: { id: string; url: string; status: string };
}

export interface RecoverCounts {
  reactivated: boolean;
  failed: number;
  redelivered: number;
  skippedStored: number;
}

export async function carryOutEffect(
  action: ControlAction,
  context: EffectContext,
): Promise<SyncResult | RegisterResult | RecoverCounts | TestResult | RemovalRun> {
  switch (action.kind) {
    case 'sync':
      return runNow(action.job, context);
    case 'webhooks.register':
      return register(action, context);
    case 'webhooks.recover': {
      const { state } = context;
      const result = await recoverWebhookDeliveries(
        context.webhookApi(),
        endpointId(context, action.endpoint),
        {
          ...(action.since === undefined ? {} : { since: new Date(action.since) }),
          dryRun: action.dryRun,
          isStored: (eventId) => state.inbox.get(eventId) !== null,
        },
      );
      return {
        reactivated: result.reactivated,
        failed: result.failed.length,
        redelivered: result.redelivered.length,
        skippedStored: result.skippedStored.length,
      };
    }
    case 'webhooks.test': {
      const delivery = await testWebhook(context.webhookApi(), endpointId(context, action.endpoint), {
        ...(context.command === undefined ? {} : { idempotencyKey: commandKey(context.command) }),
      });
      return testResult(delivery);
    }
    case 'catalog.remove':
      return removeListed(action, context);
    default:
      throw new ControlError('unknown_command', `"${action.kind}" has no effect outside the state`);
  }
}

/** Keyed by the command when it is a queued one (see keyed-registration.ts). */
async function register(
  action: Extract<ControlAction, { kind: 'webhooks.register' }>,
  context: EffectContext,
): Promise<RegisterResult> {
  const input = {
    url: action.url,
    events: action.events,
    ...(action.description === undefined ? {} : { description: action.description }),
  };
  if (context.command !== undefined) {
    return registerKeyedByCommand({
      state: context.state,
      api: context.webhookApi(),
      command: context.command,
      input,
    });
  }
  const { endpoint, created } = await registerWebhook(context.webhookApi(), {
    ...input,
    secrets: new WebhookSecretStore(context.state.kv),
  });
  return { created, endpoint: { id: endpoint.id, url: endpoint.url, status: endpoint.status } };
}

/** Through the daemon's client, keyed by the command when it is a queued one (see keyed-removal.ts). */
function removeListed(
  action: Extract<ControlAction, { kind: 'catalog.remove' }>,
  context: EffectContext,
): Promise<RemovalRun> {
  if (context.catalogApi === undefined) {
    throw new ControlError('api_unavailable', 'catalog remove needs the supplier API client');
  }
  const catalog = context.catalogApi();
  const api = { deleteProduct: catalog.deleteProduct.bind(catalog) };
  if (context.command !== undefined) {
    return removeKeyedByCommand({
      state: context.state,
      api,
      command: context.command.id,
      skus: action.skus,
      stateCheck: action.stateCheck,
    });
  }
  return removeListedProducts({
    api,
    skus: action.skus,
    dryRun: false,
    trackedBy: trackerOf(action.stateCheck ? context.state : undefined),
    onResult: () => undefined,
  });
}

export interface TestResult {
  status: string;
  response_status: number | null;
  /** The start of what the endpoint answered (the daemon's receiver names why it refused). */
  response_snippet?: string | null;
  error: string | null;
}

function testResult(delivery: WebhookDelivery): TestResult {
  return {
    status: delivery.status,
    response_status: delivery.response_status ?? null,
    response_snippet: delivery.response_snippet ?? null,
    error: delivery.error ?? null,
  };
}

/** Refuses a run of a paused job: the pause is the operator's, a run now would ignore it. */
async function runNow(job: string, context: EffectContext): Promise<SyncResult> {
  requireJob(job, context);
  requireNotPaused(job, context.state, context.timeZone);
  const result = await context.runJob(job);
  return { job, outcome: result.outcome, counts: result.counts, error: result.error ?? null };
}

/** The endpoint this daemon registered: the one whose secret the state holds (or the one given). */
export function endpointId(context: Pick<StateActionContext, 'state'>, given: string | undefined): string {
  if (given !== undefined) return given;
  const ids = [
    ...new Set(new WebhookSecretStore(context.state.kv).entries().map((entry) => entry.endpointId)),
  ];
  if (ids.length === 1 && ids[0] !== undefined) return ids[0];
  if (ids.length === 0)
    throw new ControlError(
      'webhook_not_registered',
      'no webhook endpoint registered yet; run `supply-sync webhooks register --url ...`',
    );
  throw new ControlError('usage', `several endpoints are registered (${ids.join(', ')}); name one`);
}
