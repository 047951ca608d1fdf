/**
 * Which environment a key and a base URL belong to, and the refusal to mix them.
 *
 * Keys: the prefix decides (svc_test_ = sandbox, svc_live_ = live); any other prefix is refused.
 * Base URLs, first rule that applies:
 *   1. an explicit `environment` option;
 *   2. a loopback host (localhost, 127.0.0.0/8, ::1) is a sandbox (the bundled emulator runs there);
 *   3. a URL that starts with one of the configured `sandboxBaseUrls` is a sandbox;
 *   4. anything else is live.
 * So a test key can reach a remote sandbox only when that sandbox is named in the configuration, and a live key
 * is never sent to a loopback emulator.
 */
import { LIVE_KEY_PREFIX, SANDBOX_KEY_PREFIX } from '../shared/api-key-prefix.js';
import { ClientConfigError } from './errors.js';

export type ApiEnvironment = 'sandbox' | 'live';

export { LIVE_KEY_PREFIX, SANDBOX_KEY_PREFIX };

export function environmentOfKey(key: string): ApiEnvironment {
  if (key.startsWith(SANDBOX_KEY_PREFIX)) return 'sandbox';
  if (key.startsWith(LIVE_KEY_PREFIX)) return 'live';
  throw new ClientConfigError(
    'invalid_key_prefix',
    `API key must start with ${SANDBOX_KEY_PREFIX} (sandbox) or ${LIVE_KEY_PREFIX} (live)`,
  );
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}

export interface EnvironmentRule {
  environment?: ApiEnvironment;
  sandboxBaseUrls?: readonly string[];
}

export function environmentOfBaseUrl(baseUrl: string, rule: EnvironmentRule = {}): ApiEnvironment {
  if (rule.environment) return rule.environment;
  const url = new URL(baseUrl);
  if (isLoopbackHost(url.hostname)) return 'sandbox';
  const normalised = withTrailingSlash(url.href);
  const listed = (rule.sandboxBaseUrls ?? []).some((candidate) =>
    normalised.startsWith(withTrailingSlash(new URL(candidate).href)),
  );
  return listed ? 'sandbox' : 'live';
}

/** Throws when the key's environment differs from the base URL's. The message names neither key nor secret. */
export function assertEnvironmentsMatch(
  key: string,
  baseUrl: string,
  rule: EnvironmentRule = {},
): ApiEnvironment {
  const keyEnvironment = environmentOfKey(key);
  const urlEnvironment = environmentOfBaseUrl(baseUrl, rule);
  if (keyEnvironment !== urlEnvironment) {
    throw new ClientConfigError(
      'environment_mismatch',
      `refusing to send a ${keyEnvironment} key to ${new URL(baseUrl).origin}, which is a ${urlEnvironment} base URL` +
        (urlEnvironment === 'live'
          ? ' (set environment: sandbox or list it in sandboxBaseUrls if it is a sandbox)'
          : ''),
    );
  }
  return keyEnvironment;
}
