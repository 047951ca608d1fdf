/**
 * What the daemon knows of the API: when an authenticated call last succeeded, and which credential problems
 * (401/403 answers) are standing. Any HTTP answer is not "reached": a 401 proves the network works and the key
 * does not.
 */

import { credentialFix, isCredentialCode, type CredentialCode } from '../shared/api-fixes.js';

export { CREDENTIAL_CODES, type CredentialCode } from '../shared/api-fixes.js';

/** Codes about the key as a whole: any later success with the same key clears them. */
const KEY_WIDE: ReadonlySet<string> = new Set([
  'unauthorized',
  'key_expired',
  'key_revoked',
  'client_suspended',
  'ip_not_allowed',
]);

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

/** Whether an answer proves the key was accepted: any answer but a credential refusal, a rate limit or a 5xx. */
function authenticated(status: number): boolean {
  return status < 500 && status !== 401 && status !== 403 && status !== 429;
}

export class ApiHealth {
  private reachedAt: number | undefined;
  private error: string | undefined;
  private readonly failures = new Map<string, CredentialFailure>();
  /** Sides whose key some answer accepted since the start. */
  private readonly accepted = new Set<string>();

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
        fix: credentialFix(code),
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
    this.accepted.add(call.side);
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

  /** Whether an answer since the start accepted this side's key (before any call, nobody knows). */
  keyAccepted(side: string): boolean {
    return this.accepted.has(side) && !this.credentialFailures().some((failure) => failure.side === side);
  }

  credentialFailures(): CredentialFailure[] {
    return [...this.failures.values()];
  }
}
