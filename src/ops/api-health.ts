/**
 * What the daemon knows of the API: when an authenticated call last succeeded, and which credential problems
 * (401/403 answers) are standing. Any HTTP answer is not "reached": a 401 proves the network works and the key
 * does not.
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

/** Codes about the key as a whole: any later success with the same key clears them. */
const KEY_WIDE: ReadonlySet<string> = new Set([
  'unauthorized',
  'key_expired',
  'key_revoked',
  'client_suspended',
  'ip_not_allowed',
]);

const FIXES: Record<CredentialCode, string> = {
  unauthorized: 'the API does not accept this key: set a valid key',
  key_expired: 'the key has expired: create a new key in the API console and set it',
  key_revoked: 'the key was revoked: create a new key in the API console and set it',
  client_suspended: "the API client is suspended: contact the API provider, or set another client's key",
  scope_missing: 'the key lacks a scope this call needs: set a key with the scopes the configured jobs need',
  plan_required: "the account's plan does not include this endpoint: upgrade the plan or disable the job",
  ip_not_allowed: "this host's address is not on the key's IP allowlist: add it in the API console",
};

export interface CredentialFailure {
  status: number;
  code: CredentialCode;
  /** e.g. "GET /me"; the call that was refused. */
  call: string;
  /** The API side whose key was refused (supplier or buyer). */
  side: string;
  at: number;
  /** The config key to change. */
  configKey: string;
  fix: string;
}

export interface ApiCall {
  side: string;
  method: string;
  route: string;
  status: number | null;
  errorCode: string | null;
}

function isCredentialCode(code: string | null): code is CredentialCode {
  return code !== null && (CREDENTIAL_CODES as readonly string[]).includes(code);
}

/** Whether an answer proves the key was accepted: any answer but a credential refusal, a rate limit or a 5xx. */
function authenticated(status: number): boolean {
  return status < 500 && status !== 401 && status !== 403 && status !== 429;
}

export class ApiHealth {
  private reachedAt: number | undefined;
  private error: string | undefined;
  private readonly failures = new Map<string, CredentialFailure>();

  /** @param configKey the config key holding the key (api.api_key; with OAuth the same key is the secret). */
  constructor(private readonly configKey = 'api.api_key') {}

  /** Records a call's answer; returns a credential failure that was not standing before, to log it once. */
  record(call: ApiCall, now: number): CredentialFailure | null {
    const name = `${call.method} ${call.route}`;
    if (
      call.status !== null &&
      isCredentialCode(call.errorCode) &&
      (call.status === 401 || call.status === 403)
    ) {
      const code = call.errorCode;
      const key = KEY_WIDE.has(code) ? `${call.side} ${code}` : `${call.side} ${code} ${name}`;
      const standing = this.failures.has(key);
      const failure: CredentialFailure = {
        status: call.status,
        code,
        call: name,
        side: call.side,
        at: now,
        configKey: this.configKey,
        fix: FIXES[code],
      };
      this.failures.set(key, failure);
      this.error = `${call.status} ${code}`;
      return standing ? null : failure;
    }
    if (call.status === null) {
      this.error = call.errorCode ?? 'unreachable';
      return null;
    }
    if (!authenticated(call.status)) {
      this.error = `${call.status}${call.errorCode === null ? '' : ` ${call.errorCode}`}`;
      return null;
    }
    this.reachedAt = now;
    this.error = undefined;
    for (const [key, failure] of this.failures) {
      if (failure.side !== call.side) continue;
      if (KEY_WIDE.has(failure.code) || failure.call === name) this.failures.delete(key);
    }
    return null;
  }

  get lastReachedAt(): number | undefined {
    return this.reachedAt;
  }

  get lastError(): string | undefined {
    return this.error;
  }

  credentialFailures(): CredentialFailure[] {
    return [...this.failures.values()];
  }
}
