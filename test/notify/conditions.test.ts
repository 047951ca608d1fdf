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
    expect(await readiness()).toEqual([]); // never reached the API yet: starting
    health.record(call(200, null), clock.t);
    expect((await readiness()).map((c) => c.event)).toEqual(['readiness_restored']);
    clock.t += 16 * 60_000; // silent longer than the policy allows
    const [lost] = await readiness();
    expect(lost?.event).toBe('readiness_lost');
    expect(lost?.paragraphs.join(' ')).toContain('api: unreachable');
  });

  it('reports a daemon that never became ready once the start grace is over', async () => {
    const clock = { t: 1_000_000 };
    const conditions = sources(new ApiHealth(), clock);
    expect((await conditions()).filter((c) => c.condition === 'readiness')).toEqual([]);
    clock.t += STARTUP_GRACE_MS;
    const readiness = (await conditions()).filter((c) => c.condition === 'readiness');
    expect(readiness.map((c) => c.event)).toEqual(['readiness_lost']);
  });

  it('turns a refused key into an api_key_refused change with its fix, and an accepted one into a silent one', async () => {
    const clock = { t: 1_000_000 };
    const health = new ApiHealth();
    const conditions = sources(health, clock);
    const supplier = async () => (await conditions()).find((c) => c.condition === 'api_key:supplier');
    expect(await supplier()).toMatchObject({ value: 'accepted', notify: false });
    health.record(call(401, 'key_revoked'), clock.t);
    const refused = await supplier();
    expect(refused).toMatchObject({ value: 'key_revoked', notify: true, event: 'api_key_refused' });
    expect(refused?.paragraphs[0]).toContain('the key was revoked');
  });
});
