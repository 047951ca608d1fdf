/** The public view of the sandbox's clients: the keys object tests read and the --keys-out entries. */
import type { SandboxKeyInfo, SandboxKeys } from './options.js';
import type { ApiClient } from './platform/state.js';

export function describeKeys(apiClients: readonly ApiClient[]): {
  clients: SandboxKeyInfo[];
  keys: SandboxKeys;
} {
  const clients = apiClients.map((c) => ({
    key: c.key,
    client_id: c.id,
    scopes: [...c.scopes],
    plan: c.plan,
    purpose: c.purpose,
  }));
  const keyOf = (purpose: string) => clients.find((c) => c.purpose === purpose)?.key ?? '';
  return {
    clients,
    keys: {
      supplier: keyOf('supplier'),
      buyer: keyOf('buyer'),
      readOnly: keyOf('read_only'),
      buyerReadOnly: keyOf('buyer_read_only'),
      expired: keyOf('expired'),
      revoked: keyOf('revoked'),
      suspended: keyOf('suspended'),
      basic: keyOf('basic_plan'),
      enterprise: keyOf('enterprise'),
      ipRestricted: keyOf('ip_restricted'),
    },
  };
}

/** GET /_sandbox/keys: every key, read at each call, so the keys of accounts created since are in it too. */
export function keysDocument(origin: string, apiClients: readonly ApiClient[]): Record<string, unknown> {
  return { base_url: `${origin}/v2`, keys: describeKeys(apiClients).clients };
}
