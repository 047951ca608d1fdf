/**
 * What a person does about an API answer that no retry fixes: one sentence per credential code, said the same way by
 * `doctor`, /readyz and /status, and every notification.
 */

/** The 401/403 codes of the contract that no retry fixes: the configuration (or the account) must change. */
export const CREDENTIAL_CODES = [
  'unauthorized',
  'key_expired',
  'key_revoked',
  'client_suspended',
  'scope_missing',
  'plan_required',
  'ip_not_allowed',
] as const;

export type CredentialCode = (typeof CREDENTIAL_CODES)[number];

const FIXES: Record<CredentialCode, string> = {
  unauthorized: 'the API does not accept this key: set a valid key',
  key_expired: 'the key has expired: create a new key in the API console and set it',
  key_revoked: 'the key was revoked: create a new key in the API console and set it',
  client_suspended: "the API client is suspended: contact the API provider, or set another client's key",
  scope_missing: 'the key lacks a scope this call needs: set a key with the scopes the configured jobs need',
  plan_required: "the account's plan does not include this endpoint: upgrade the plan or disable the job",
  ip_not_allowed: "this host's address is not on the key's IP allowlist: add it in the API console",
};

export function isCredentialCode(code: string | null | undefined): code is CredentialCode {
  return typeof code === 'string' && (CREDENTIAL_CODES as readonly string[]).includes(code);
}

/** The fix for a credential code, e.g. key_revoked; the config key to change is named by the caller. */
export function credentialFix(code: CredentialCode): string {
  return FIXES[code];
}

/** The fix when the API cannot be reached at all. */
export const UNREACHABLE_FIX =
  'check that api.base_url is right and reachable from this host (proxy, firewall, DNS)';
