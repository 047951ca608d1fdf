import type { Dispatcher } from 'undici';
import { ApiError } from '../../client/index.js';
import type { Config, PluginSchemas } from '../../config/index.js';
import { openApi, type ApiSide } from '../../api-access/index.js';
import { credentialFix, isCredentialCode, UNREACHABLE_FIX } from '../../shared/api-fixes.js';
import { loadUndici } from '../../shared/lazy-packages.js';
import { check, type DoctorCheck } from './check.js';
import { networkChecks } from './network-checks.js';

const FIXES: Record<string, string> = {
  network_error: UNREACHABLE_FIX,
  environment_mismatch: 'use a svc_test_ key with the sandbox and a svc_live_ key with production',
};

/** The fix for an API answer: a refused key is fixed as /readyz and the notifications say it. */
function fixFor(code: unknown): string | undefined {
  if (typeof code !== 'string') return undefined;
  return isCredentialCode(code) ? `${credentialFix(code)} (api.api_key or api.api_key_file)` : FIXES[code];
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

interface FlowNeeds {
  scopes: Set<string>;
  unknownFlows: string[];
  /** Jobs per account side their flow speaks for. */
  sides: Map<ApiSide, string[]>;
}

function flowNeeds(config: Config, registry: PluginSchemas): FlowNeeds {
  const needs: FlowNeeds = { scopes: new Set(), unknownFlows: [], sides: new Map() };
  for (const [name, job] of Object.entries(config.jobs)) {
    if (!job.enabled) continue;
    const flow = registry.flow(job.flow);
    if (!flow) {
      needs.unknownFlows.push(job.flow);
      continue;
    }
    for (const scope of flow.scopes) needs.scopes.add(scope);
    needs.sides.set(flow.side, [...(needs.sides.get(flow.side) ?? []), name]);
  }
  return needs;
}

/** The account type GET /me reports must suit every job: supplier flows need a supplier account, buyer flows not. */
function sideChecks(accountType: string, sides: FlowNeeds['sides']): DoctorCheck[] {
  const results: DoctorCheck[] = [];
  const isSupplier = accountType === 'supplier';
  for (const [side, jobs] of sides) {
    if ((side === 'supplier') === isSupplier) continue;
    const detail = `jobs ${jobs.join(', ')} need a ${side} account; this key belongs to a ${accountType} account`;
    const fix = `use a ${side} key, or run these jobs in a separate install with their own config`;
    results.push(check('fail', 'api account', detail, fix));
  }
  return results;
}

type ApiAccess = Awaited<ReturnType<typeof openApi>>;
type Me = Awaited<ReturnType<ApiAccess['api']['account']['me']>>;

/** Every scope the enabled jobs need must be granted; flows unknown to this build leave it open. */
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

/** What GET /me tells: the account, environment, sides, scopes, plan and rate limit. */
async function accountChecks(
  access: ApiAccess,
  config: Config,
  registry: PluginSchemas,
): Promise<DoctorCheck[]> {
  try {
    const me = await access.api.account.me();
    const keyPrefix = me.client.key_prefix ?? '';
    const { scopes, unknownFlows, sides } = flowNeeds(config, registry);
    const perDay = me.rate_limit.per_day === null ? 'no daily limit' : `${me.rate_limit.per_day}/day`;
    return [
      check(
        'ok',
        'api',
        `GET /me at ${access.label}: ${me.account.name} (${me.account.type}), client ${me.client.name}`,
      ),
      check('ok', 'api environment', `${me.client.environment}${keyPrefix ? `, key ${keyPrefix}...` : ''}`),
      ...sideChecks(me.account.type, sides),
      scopeCheck(me, scopes, unknownFlows),
      check('ok', 'api plan', `${me.plan}; features ${me.features.join(', ') || 'none'}`),
      check('ok', 'api rate limit', `${me.rate_limit.per_minute}/min, ${perDay}`),
    ];
  } catch (error) {
    const code = error instanceof ApiError ? error.code : (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    return [check('fail', 'api', `GET /me at ${access.label} failed: ${message}`, fixFor(code))];
  }
}

async function clockSkewCheck(access: ApiAccess): Promise<DoctorCheck> {
  try {
    const skew = await clockSkew(access.baseUrl, access.api.dispatcher);
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

export async function apiChecks(config: Config, registry: PluginSchemas): Promise<DoctorCheck[]> {
  const results: DoctorCheck[] = await networkChecks(config);
  if (
    results.some(
      (item) => item.name === 'api ca_file' || (item.name === 'api proxy' && item.status === 'fail'),
    )
  ) {
    return results;
  }
  let access: ApiAccess;
  try {
    access = await openApi(config);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    const message = error instanceof Error ? error.message : String(error);
    return [...results, check('fail', 'api', message, fixFor(code))];
  }
  try {
    results.push(...(await accountChecks(access, config, registry)));
    results.push(await clockSkewCheck(access));
  } finally {
    await access.close();
  }
  return results;
}
