/** The watched conditions: readiness after the start is over, and refused keys from the daemon's API health. */
import { describe, expect, it } from 'vitest';
import { STARTUP_GRACE_MS, watchedConditions } from '../../src/daemon/services/notification-conditions.js';
import { ApiHealth, type OpsProviders } from '../../src/ops/index.js';

function sources(apiHealth: ApiHealth, clock: { t: number }) {
  const providers: OpsProviders = {
    checkStateWritable: () => undefined,
    api: () => {
      const lastReachedAt = apiHealth.lastReachedAt;
      return {
        ...(lastReachedAt === undefined ? {} : { lastReachedAt }),
        credentialFailures: apiHealth.credentialFailures(),
      };
    },
    connectors: () => [],
    jobs: () => [],
  };
  return watchedConditions({ providers, apiHealth, now: () => clock.t, secrets: () => [] });
}

const call = (status: number, errorCode: string | null) => ({
  side: 'supplier',
  method: 'GET',
  route: '/me',
  status,
  errorCode,
});

describe('watched conditions', () => {
  it('says nothing of readiness while the daemon starts, then reports it lost once it had been ready', async () => {
    const clock = { t: 1_000_000 };
    const health = new ApiHealth();
    const conditions = sources(health, clock);
    const readiness = async () => (await conditions()).filter((c) => c.condition === 'readiness');
    // never reached the API yet: starting, so not known
    expect((await readiness()).map((c) => c.state)).toEqual(['unknown']);
    health.record(call(200, null), clock.t);
    expect((await readiness()).map((c) => c.state)).toEqual(['clear']);
    clock.t += 16 * 60_000; // silent longer than the policy allows
    const [lost] = await readiness();
    expect(lost).toMatchObject({ state: 'open', event: 'readiness_lost' });
    expect(lost?.paragraphs.join(' ')).toContain('api: unreachable');
  });

  it('reports a daemon that never became ready once the start grace is over', async () => {
    const clock = { t: 1_000_000 };
    const conditions = sources(new ApiHealth(), clock);
    const state = async () => (await conditions()).find((c) => c.condition === 'readiness')?.state;
    expect(await state()).toBe('unknown');
    clock.t += STARTUP_GRACE_MS;
    expect(await state()).toBe('open');
  });

  it('turns a refused key into an open api_key_refused condition with its fix, accepted only once an answer says so', async () => {
    const clock = { t: 1_000_000 };
    const health = new ApiHealth();
    const conditions = sources(health, clock);
    const supplier = async () => (await conditions()).find((c) => c.condition === 'api_key:supplier');
    expect(await supplier()).toMatchObject({ state: 'unknown' }); // no call yet (say, just after a restart)
    health.record(call(401, 'key_revoked'), clock.t);
    const refused = await supplier();
    expect(refused).toMatchObject({ value: 'key_revoked', state: 'open', event: 'api_key_refused' });
    expect(refused?.paragraphs[0]).toContain(
      'To fix: the key was revoked: create a new key in the API console and set it (api.api_key).',
    );
    health.record(call(200, null), clock.t);
    expect(await supplier()).toMatchObject({ state: 'clear' });
  });
});
