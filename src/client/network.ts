/**
 * How the client reaches the API: directly or through a forward proxy (HTTPS_PROXY, HTTP_PROXY and NO_PROXY in
 * any case, or an explicit proxy that overrides them), trusting the system CAs plus any private ones given.
 */
import { rootCertificates } from 'node:tls';
import type { Dispatcher, EnvHttpProxyAgent } from 'undici';
import { lazy, loadUndici } from '../shared/lazy-packages.js';
import { ClientConfigError } from './errors.js';

export interface ExplicitProxy {
  /** http://host:port (credentials may be given apart, never printed). */
  url: string;
  username?: string | undefined;
  password?: string | undefined;
  /** Hosts that bypass the proxy, in NO_PROXY syntax; the NO_PROXY variable does not apply with this proxy. */
  noProxy?: string | undefined;
}

export interface NetworkOptions {
  /** Overrides the proxy environment variables. */
  proxy?: ExplicitProxy | undefined;
  /** PEM certificates trusted in addition to the system store. */
  extraCaCertificates?: readonly string[] | undefined;
  /** Where the proxy variables come from; default process.env. */
  env?: Readonly<Record<string, string | undefined>> | undefined;
  connections?: number;
  connectTimeoutMs?: number;
  attemptTimeoutMs?: number;
}

/** The proxy settings in force, with where each came from (for doctor and error messages). */
export interface ProxySettings {
  readonly httpProxy: string | undefined;
  readonly httpsProxy: string | undefined;
  readonly noProxy: string;
  /** "api.proxy.url", "HTTPS_PROXY", "https_proxy", ... */
  readonly httpSource: string | undefined;
  readonly httpsSource: string | undefined;
  readonly noProxySource: string | undefined;
  /** Proxy-Authorization for an explicit proxy with username and password. */
  readonly token: string | undefined;
}

/** The first set variable among the names, lower case first as curl and undici read them. */
function fromEnv(
  env: Readonly<Record<string, string | undefined>>,
  names: readonly string[],
): { value: string; source: string } | undefined {
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') return { value: value.trim(), source: name };
  }
  return undefined;
}

function checkedProxyUrl(value: string, source: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    // The value itself may hold a password: name the setting, never echo it.
    throw new ClientConfigError('invalid_proxy', `${source} is not a URL (expected http://host:port)`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ClientConfigError(
      'invalid_proxy',
      `${source} uses ${parsed.protocol.replace(/:$/, '')}; expected an http:// or https:// proxy URL`,
    );
  }
  return value;
}

export function resolveProxySettings(options: Pick<NetworkOptions, 'proxy' | 'env'>): ProxySettings {
  const env = options.env ?? process.env;
  if (options.proxy !== undefined) {
    const url = checkedProxyUrl(options.proxy.url, 'api.proxy.url');
    const { username, password } = options.proxy;
    const token =
      username !== undefined
        ? `Basic ${Buffer.from(`${username}:${password ?? ''}`).toString('base64')}`
        : undefined;
    return {
      httpProxy: url,
      httpsProxy: url,
      noProxy: options.proxy.noProxy ?? '',
      httpSource: 'api.proxy.url',
      httpsSource: 'api.proxy.url',
      noProxySource: 'api.proxy.no_proxy',
      token,
    };
  }
  const http = fromEnv(env, ['http_proxy', 'HTTP_PROXY']);
  const https = fromEnv(env, ['https_proxy', 'HTTPS_PROXY']) ?? http;
  const noProxyEnv = fromEnv(env, ['no_proxy', 'NO_PROXY']);
  return {
    httpProxy: http === undefined ? undefined : checkedProxyUrl(http.value, http.source),
    httpsProxy: https === undefined ? undefined : checkedProxyUrl(https.value, https.source),
    noProxy: noProxyEnv?.value ?? '',
    httpSource: http?.source,
    httpsSource: https?.source,
    noProxySource: noProxyEnv?.source,
    token: undefined,
  };
}

/** A proxy URL fit to print: the password (if any) replaced. */
export function printableProxyUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.href.replace(/\/$/, '');
}

/** The proxy password inside settings (URL userinfo or explicit), to register with every redactor. */
export function proxySecrets(settings: ProxySettings, proxy: ExplicitProxy | undefined): string[] {
  const secrets: string[] = [];
  for (const url of [settings.httpProxy, settings.httpsProxy]) {
    if (url === undefined) continue;
    const password = decodeURIComponent(new URL(url).password);
    if (password !== '') secrets.push(password, url);
  }
  if (proxy?.password !== undefined) secrets.push(proxy.password);
  if (settings.token !== undefined) secrets.push(settings.token);
  return secrets;
}

export interface ProxyRoute {
  /** The proxy URL (password hidden), or null for a direct connection. */
  readonly proxy: string | null;
  /** Why: which setting chose the proxy, or which made the connection direct. */
  readonly reason: string;
}

/**
 * Which way a request to `target` goes, by the rules undici's EnvHttpProxyAgent applies to the same settings:
 * NO_PROXY entries match the host or any subdomain, optionally with a port; "*" disables the proxy.
 */
export function proxyRouteFor(target: string, settings: ProxySettings): ProxyRoute {
  const url = new URL(target);
  const https = url.protocol === 'https:';
  const proxy = https ? settings.httpsProxy : settings.httpProxy;
  const source = https ? settings.httpsSource : settings.httpSource;
  const variable = https ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  if (proxy === undefined) return { proxy: null, reason: `direct: no api.proxy and no ${variable} set` };
  const host = url.host.replace(/:\d*$/, '').toLowerCase();
  const port = Number.parseInt(url.port, 10) || (https ? 443 : 80);
  const bypass = noProxyMatch(host, port, settings.noProxy);
  if (bypass !== undefined) {
    return { proxy: null, reason: `direct: ${settings.noProxySource ?? 'NO_PROXY'} lists ${bypass}` };
  }
  return { proxy: printableProxyUrl(proxy), reason: `proxy from ${source ?? variable}` };
}

function noProxyMatch(hostname: string, port: number, noProxy: string): string | undefined {
  const value = noProxy.trim();
  if (value === '*') return '*';
  for (const raw of value.split(/[,\s]/)) {
    if (raw === '') continue;
    const parsed = /^(.+):(\d+)$/.exec(raw);
    const entryHost = (parsed ? (parsed[1] ?? raw) : raw).replace(/^\*?\./, '').toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2] ?? '0', 10) : 0;
    if (entryPort !== 0 && entryPort !== port) continue;
    if (hostname === entryHost || hostname.endsWith(`.${entryHost}`)) return raw;
  }
  return undefined;
}

/** A dispatcher made at its first use; closing closes it only if it was made. */
export interface LazyDispatcher {
  get(): Promise<Dispatcher>;
  close(): Promise<void>;
}

/**
 * The dispatcher every API call, token exchange, upload and download goes through. The settings are checked now
 * (a bad proxy URL throws here); the agent is made at the first request.
 */
export function createNetworkDispatcher(options: NetworkOptions = {}): LazyDispatcher {
  const agentOptions = proxyAgentOptions(options);
  const dispatcher = lazy(async (): Promise<Dispatcher> => {
    const { EnvHttpProxyAgent } = await loadUndici();
    return new EnvHttpProxyAgent(agentOptions);
  });
  return {
    get: dispatcher.get,
    async close() {
      const made = await dispatcher.started()?.catch(() => undefined);
      await made?.close();
    },
  };
}

function proxyAgentOptions(options: NetworkOptions): EnvHttpProxyAgent.Options {
  const settings = resolveProxySettings(options);
  const timeout = options.attemptTimeoutMs ?? 60_000;
  const connectTimeout = options.connectTimeoutMs ?? 10_000;
  const ca =
    options.extraCaCertificates && options.extraCaCertificates.length > 0
      ? [...rootCertificates, ...options.extraCaCertificates]
      : undefined;
  const tls = { timeout: connectTimeout, ...(ca ? { ca } : {}) };
  return {
    // Explicit values (possibly empty) so undici does not read the environment a second time on its own.
    httpProxy: settings.httpProxy ?? '',
    httpsProxy: settings.httpsProxy ?? '',
    noProxy: settings.noProxy,
    ...(settings.token === undefined ? {} : { token: settings.token }),
    // http:// targets go as absolute-URI requests; https:// targets through a CONNECT tunnel.
    proxyTunnel: false,
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: Math.max(1, options.connections ?? 8),
    connect: tls,
    requestTls: tls,
    proxyTls: tls,
    headersTimeout: timeout,
    bodyTimeout: timeout,
  };
}
