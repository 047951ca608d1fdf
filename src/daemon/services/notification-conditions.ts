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
    const changes: Transition[] = starting ? [] : [readinessChange(readiness.ready, reasons)];
    const failures = sources.apiHealth.credentialFailures();
    for (const side of ['supplier', 'buyer']) {
      const refused = failures.filter((failure) => failure.side === side);
      changes.push({
        condition: `api_key:${side}`,
        value:
          refused.length === 0
            ? 'accepted'
            : refused
                .map((failure) => failure.code)
                .sort()
                .join(','),
        event: 'api_key_refused',
        severity: 'error',
        subject: `The API refused the ${side} key`,
        paragraphs: refused.map(
          (failure) =>
            `${failure.call}: HTTP ${failure.status} ${failure.code}. Fix: ${failure.fix} (${failure.configKey})`,
        ),
        notify: refused.length > 0,
      });
    }
    return changes;
  };
}

function readinessChange(ready: boolean, reasons: readonly string[]): Transition {
  return ready
    ? {
        condition: 'readiness',
        value: 'ready',
        event: 'readiness_restored',
        severity: 'ok',
        subject: 'Ready again',
        paragraphs: ['Every readiness check passes again.'],
      }
    : {
        condition: 'readiness',
        value: 'not_ready',
        event: 'readiness_lost',
        severity: 'error',
        subject: 'Not ready',
        paragraphs: ['A readiness check fails:', ...reasons],
      };
}
