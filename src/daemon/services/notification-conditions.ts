/** The conditions notifications watch, read from what /readyz and /status read: readiness and refused API keys. */
import {
  DEFAULT_READINESS_POLICY,
  evaluateReadiness,
  type ApiHealth,
  type OpsProviders,
} from '../../ops/index.js';
import type { Transition } from '../../notify/index.js';

export interface ConditionSources {
  readonly providers: OpsProviders;
  readonly apiHealth: ApiHealth;
  readonly now: () => number;
  readonly secrets: () => readonly string[];
}

/**
 * A daemon is not ready while it starts (no API call has succeeded yet, connectors unchecked): until it has been
 * ready once, or this long has passed, not being ready is not news, so a restart does not page anyone.
 */
export const STARTUP_GRACE_MS = 5 * 60_000;

export function watchedConditions(sources: ConditionSources): () => Promise<Transition[]> {
  const startedAt = sources.now();
  let beenReady = false;
  return async () => {
    const readiness = await evaluateReadiness(
      sources.providers,
      sources.now(),
      DEFAULT_READINESS_POLICY,
      sources.secrets(),
    );
    const reasons = readiness.reasons.map(
      (check) => `${check.check}: ${check.state}${check.detail ? ` (${check.detail})` : ''}`,
    );
    beenReady ||= readiness.ready;
    const starting = !beenReady && sources.now() - startedAt < STARTUP_GRACE_MS;
    return [
      readinessChange(starting ? 'unknown' : readiness.ready ? 'clear' : 'open', reasons),
      ...['supplier', 'buyer'].map((side) => keyChange(sources.apiHealth, side)),
    ];
  };
}

/** A side's key: refused (with the fix /readyz gives), accepted by some answer since the start, or not known yet. */
function keyChange(apiHealth: ApiHealth, side: string): Transition {
  const refused = apiHealth.credentialFailures().filter((failure) => failure.side === side);
  const state = refused.length > 0 ? 'open' : apiHealth.keyAccepted(side) ? 'clear' : 'unknown';
  return {
    condition: `api_key:${side}`,
    value: refused
      .map((failure) => failure.code)
      .sort()
      .join(','),
    state,
    event: 'api_key_refused',
    ...(refused[0] === undefined ? {} : { since: Math.min(...refused.map((failure) => failure.at)) }),
    title: `The API refused the ${side} key`,
    paragraphs: refused.map(
      (failure) =>
        `${failure.call} answered HTTP ${failure.status} ${failure.code}. To fix: ${failure.fix} (${failure.configKey}).`,
    ),
    cleared: `The API accepts the ${side} key again`,
  };
}

function readinessChange(state: Transition['state'], reasons: readonly string[]): Transition {
  return {
    condition: 'readiness',
    value: 'not_ready',
    state,
    event: 'readiness_lost',
    recoveryEvent: 'readiness_restored',
    title: 'supply-sync is not ready',
    paragraphs: ['A readiness check fails (as /readyz says it, with its fix):', ...reasons],
    cleared: 'Every readiness check passes again',
  };
}
