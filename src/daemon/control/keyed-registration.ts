/**
 * `webhooks register` carried out by a daemon, keyed by its command: the create is sent with an idempotency key
 * made from the command, so an attempt whose answer was lost is replayed (the API answers as it did, the signing
 * secret included) rather than creating a second endpoint; and the outcome is recorded in the state under the
 * command's id once the secret is stored, so a later attempt of the same command (a new leader after a failover, a
 * restart before the command was recorded done) answers as the first did and sends nothing again.
 */
import type { StateStore } from '../../state/index.js';
import {
  WebhookSecretStore,
  registerWebhook,
  type RegisterWebhookOptions,
  type WebhookApi,
} from '../../webhooks/index.js';

const NAMESPACE = 'command-effects';

export interface RegisteredByCommand {
  created: boolean;
  endpoint: { id: string; url: string; status: string };
}

export interface KeyedRegistration {
  readonly state: StateStore;
  readonly api: WebhookApi;
  readonly command: { readonly id: number; readonly requestedAt: number; readonly takenBefore: boolean };
  readonly input: Pick<RegisterWebhookOptions, 'url' | 'events' | 'description'>;
}

/** The idempotency key of a queued command's API write: the same at every attempt, so a new leader sends no second. */
export function commandKey(command: { readonly id: number; readonly requestedAt: number }): string {
  return `supply-sync-command-${command.id}-${command.requestedAt}`;
}

export async function registerKeyedByCommand(input: KeyedRegistration): Promise<RegisteredByCommand> {
  const { state, command } = input;
  const key = `${command.id}:webhooks.register`;
  const secrets = new WebhookSecretStore(state.kv);
  const recorded = state.kv.get(NAMESPACE, key) as RegisteredByCommand | undefined;
  if (
    recorded !== undefined &&
    secrets.entries().some((entry) => entry.endpointId === recorded.endpoint.id)
  ) {
    return recorded;
  }
  const { endpoint, created } = await registerWebhook(input.api, {
    url: input.input.url,
    events: input.input.events,
    ...(input.input.description === undefined ? {} : { description: input.input.description }),
    secrets,
    idempotencyKey: commandKey(command),
    repeat: command.takenBefore,
  });
  const outcome: RegisteredByCommand = {
    created,
    endpoint: { id: endpoint.id, url: endpoint.url, status: endpoint.status },
  };
  state.transaction(() => state.kv.set(NAMESPACE, key, outcome));
  return outcome;
}
