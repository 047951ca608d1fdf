import type { Dispatcher } from 'undici';
import { ApiError, type ApiClient } from '../../client/index.js';
import type { Config, PluginSchemas } from '../../config/index.js';
import { apiClientFor, openApiEndpoint, type ApiEndpoint, type ApiSide } from '../../api-access/index.js';
import { credentialFix, isCredentialCode, UNREACHABLE_FIX } from '../../shared/api-fixes.js';
import { loadUndici } from '../../shared/lazy-packages.js';
import { check, type DoctorCheck } from './check.js';
import { daemonSandbox } from './daemon-sandbox.js';
import { networkChecks } from './network-checks.js';

const FIXES: Record<string, string> = {
  network_error: UNREACHABLE_FIX,
  environment_mismatch: 'use a svc_test_ key with the sandbox and a svc_live_ key with production',
};

/**
 * The fix for an API answer: a refused key is fixed as /readyz and the notifications say it, at `keySetting` (the
 * setting as the config names it).
 */
function fixFor(code: unknown, keySetting: string): string | undefined {
  if (typeof code !== 'string') return undefined;
  return isCredentialCode(code) ? `${credentialFix(code)} (${keySetting})` : FIXES[code];
}

/** Server clock offset from the Date header of an unauthenticated request (any status carries it). */
async function clockSkew(
  baseUrl: string,
  dispatcherOf: () => Promise<Dispatcher>,
): Promise<number | undefined> {
  const [{ request }, dispatcher] = await Promise.all([loadUndici(), dispatcherOf()]);
  const before = Date.now();
  const response = await request(`${baseUrl}/me`, {
    dispatcher,
    method: 'GET',
    headersTimeout: 10_000,
    bodyTimeout: 10_000,
  });
  const after = Date.now();
  await response.body.dump();
  const date = response.headers['date'];
  const serverTime = typeof date === 'string' ? Date.parse(date) : NaN;
  return Number.isNaN(serverTime) ? undefined : serverTime - (before + after) / 2;
}

/** The enabled jobs of one account side and the scopes their flows need. */
interface SideNeeds {
  readonly jobs: string[];
  readonly scopes: Set<string>;
}

interface FlowNeeds {
  unknownFlows: string[];
  sides: Map<ApiSide, SideNeeds>;
}

function flowNeeds(config: Config, registry: PluginSchemas): FlowNeeds {
  const needs: FlowNeeds = { unknownFlows: [], sides: new Map() };
  for (const [name, job] of Object.entries(config.jobs)) {
    if (!job.enabled) continue;
    const flow = registry.flow(job.flow);
    if (!flow) {
      needs.unknownFlows.push(job.flow);
      continue;
    }
    const side = needs.sides.get(flow.side) ?? { jobs: [], scopes: new Set<string>() };
    side.jobs.push(name);
    for (const scope of flow.scopes) side.scopes.add(scope);
    needs.sides.set(flow.side, side);
  }
  return needs;
}

/** The jobs one key serves: the daemon gives each side its own key, which may be the same one. */
interface KeyUse {
  readonly side: ApiSide;
  readonly sides: Map<ApiSide, SideNeeds>;
  /** "(key of jobs …)" when the jobs use more than one key, so each GET /me line says whose key it checked. */
  label: string;
}

function keyUses(endpoint: ApiEndpoint, needs: FlowNeeds): KeyUse[] {
  const byKey = new Map<string, KeyUse>();
  // Without jobs the daemon still watches the API with the supplier-side key.
  const watching = new Map<ApiSide, SideNeeds>([['supplier', { jobs: [], scopes: new Set() }]]);
  const sides = needs.sides.size > 0 ? needs.sides : watching;
  for (const [side, need] of sides) {
    const key = endpoint.keyFor(side);
    const use = byKey.get(key) ?? { side, sides: new Map(), label: '' };
    use.sides.set(side, need);
    byKey.set(key, use);
  }
  const uses = [...byKey.values()];
  if (uses.length > 1) {
    for (const use of uses)
      use.label = ` (key of jobs ${[...use.sides.values()].flatMap((n) => n.jobs).join(', ')})`;
  }
  return uses;
}

/** The account type GET /me reports must suit every job: supplier flows need a supplier account, buyer flows not. */
function sideChecks(accountType: string, sides: KeyUse['sides']): DoctorCheck[] {
  const results: DoctorCheck[] = [];
  const isSupplier = accountType === 'supplier';
  for (const [side, { jobs }] of sides) {
    if (jobs.length === 0 || (side === 'supplier') === isSupplier) continue;
    const detail = `jobs ${jobs.join(', ')} need a ${side} account; this key belongs to a ${accountType} account`;
    const fix = `use a ${side} key, or run these jobs in a separate install with their own config`;
    results.push(check('fail', 'api account', detail, fix));
  }
  return results;
}

type Me = Awaited<ReturnType<ApiClient['account']['me']>>;

/** Every scope the key's jobs need must be granted; flows unknown to this build leave it open. */
function scopeCheck(me: Me, scopes: ReadonlySet<string>, unknownFlows: readonly string[]): DoctorCheck {
  const missing = [...scopes].filter((scope) => !me.scopes.includes(scope));
  if (missing.length > 0) {
    return check(
      'fail',
      'api scopes',
      `missing ${missing.join(', ')}`,
      'grant these scopes to the integration in the product settings',
    );
  }
  if (unknownFlows.length > 0) {
    return check(
      'warn',
      'api scopes',
      `granted ${me.scopes.join(', ')}; needs of flows ${[...new Set(unknownFlows)].join(', ')} unknown to this build`,
    );
  }
  return check(
    'ok',
    'api scopes',
    `every scope the enabled jobs need is granted (${[...scopes].join(', ') || 'none needed'})`,
  );
}

/** What GET /me tells of one key: the account, environment, side, scopes, plan and rate limit. */
async function accountChecks(
  api: ApiClient,
  label: string,
  use: KeyUse,
  unknownFlows: readonly string[],
  keySetting: string,
): Promise<DoctorCheck[]> {
  try {
    const me = await api.account.me();
    const keyPrefix = me.client.key_prefix ?? '';
    const scopes = new Set([...use.sides.values()].flatMap((need) => [...need.scopes]));
    const perDay = me.rate_limit.per_day === null ? 'no daily limit' : `${me.rate_limit.per_day}/day`;
    return [
      check(
        'ok',
        'api',
        `GET /me at ${label}${use.label}: ${me.account.name} (${me.account.type}), client ${me.client.name}`,
      ),
      check('ok', 'api environment', `${me.client.environment}${keyPrefix ? `, key ${keyPrefix}...` : ''}`),
      ...sideChecks(me.account.type, use.sides),
      scopeCheck(me, scopes, unknownFlows),
      check('ok', 'api plan', `${me.plan}; features ${me.features.join(', ') || 'none'}`),
      check('ok', 'api rate limit', `${me.rate_limit.per_minute}/min, ${perDay}`),
    ];
  } catch (error) {
    const code = error instanceof ApiError ? error.code : (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    return [
      check('fail', 'api', `GET /me at ${label}${use.label} failed: ${message}`, fixFor(code, keySetting)),
    ];
  }
}

async function clockSkewCheck(baseUrl: string, api: ApiClient): Promise<DoctorCheck> {
  try {
    const skew = await clockSkew(baseUrl, api.dispatcher);
    if (skew === undefined) return check('warn', 'clock skew', 'the API sent no Date header');
    // The Date header has whole seconds, so a difference of up to a second is noise.
    const seconds = Math.round(skew / 1000);
    const detail =
      Math.abs(seconds) <= 1
        ? 'in step with the API (within 1 s)'
        : `this host is ${Math.abs(seconds)} s ${seconds > 0 ? 'behind' : 'ahead of'} the API`;
    const fix = 'synchronise this host with NTP (webhook signatures allow 5 minutes)';
    const status = Math.abs(seconds) > 300 ? 'fail' : Math.abs(seconds) > 30 ? 'warn' : 'ok';
    return check(status, 'clock skew', detail, fix);
  } catch (error) {
    return check(
      'warn',
      'clock skew',
      `not measured: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** GET /me with each key the jobs use, as the daemon gives it to their side, then the clock against the API. */
async function endpointChecks(
  config: Config,
  endpoint: ApiEndpoint,
  registry: PluginSchemas,
  keySetting: string,
): Promise<DoctorCheck[]> {
  const needs = flowNeeds(config, registry);
  const results: DoctorCheck[] = [];
  for (const [index, use] of keyUses(endpoint, needs).entries()) {
    const api = apiClientFor(config, endpoint, use.side);
    try {
      // Flows unknown to this build are said once, with the first key.
      const unknownFlows = index === 0 ? needs.unknownFlows : [];
      results.push(...(await accountChecks(api, endpoint.label, use, unknownFlows, keySetting)));
      if (index === 0) results.push(await clockSkewCheck(endpoint.baseUrl, api));
    } finally {
      await api.close();
    }
  }
  return results;
}

/** @param keySetting where the API key is set, as the config names it (api.api_key or api.api_key_file). */
export async function apiChecks(
  config: Config,
  registry: PluginSchemas,
  keySetting: string,
): Promise<DoctorCheck[]> {
  const results: DoctorCheck[] = await networkChecks(config);
  if (
    results.some(
      (item) => item.name === 'api ca_file' || (item.name === 'api proxy' && item.status === 'fail'),
    )
  ) {
    return results;
  }
  const sandbox = await daemonSandbox(config);
  results.push(...sandbox.checks);
  try {
    let endpoint: ApiEndpoint;
    try {
      endpoint = await openApiEndpoint(config, sandbox.options);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const message = error instanceof Error ? error.message : String(error);
      return [...results, check('fail', 'api', message, fixFor(code, keySetting))];
    }
    try {
      results.push(...(await endpointChecks(config, endpoint, registry, keySetting)));
    } finally {
      await endpoint.close();
    }
  } finally {
    await sandbox.dispose();
  }
  return results;
}
