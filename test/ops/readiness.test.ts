import { describe, expect, it } from 'vitest';
import { ApiHealth, jobCheck } from '../../src/ops/index.js';

const NOW = Date.parse('2026-11-22T10:00:00Z');
const HOUR = 3_600_000;

describe('jobCheck: not due versus failing', () => {
  it('skips jobs without a freshness setting', () => {
    expect(jobCheck({ name: 'j', lastOutcome: 'failed' }, NOW)).toMatchObject({
      ok: true,
      state: 'unchecked',
    });
  });

  it('calls a job that owes no run "not due", however old its last success', () => {
    const job = {
      name: 'nightly',
      freshnessMs: HOUR,
      lastSuccessAt: NOW - 20 * HOUR,
      nextRunAt: NOW + 4 * HOUR,
    };
    expect(jobCheck(job, NOW)).toMatchObject({ ok: true, state: 'not_due' });
    expect(jobCheck({ ...job, dueSince: NOW + 4 * HOUR }, NOW)).toMatchObject({ ok: true, state: 'not_due' });
    expect(jobCheck({ ...job, lastSuccessAt: NOW - 10 * 60_000 }, NOW)).toMatchObject({
      ok: true,
      state: 'fresh',
    });
  });

  it('gives a due job its freshness window, boundary included', () => {
    const job = { name: 'orders', freshnessMs: HOUR, dueSince: NOW - HOUR };
    expect(jobCheck(job, NOW)).toMatchObject({ ok: true, state: 'due' });
    expect(jobCheck(job, NOW + 1)).toMatchObject({ ok: false, state: 'overdue' });
  });

  it('tells a failing job from an overdue one, and scrubs the error it shows', () => {
    const job = { name: 'journal-export', freshnessMs: HOUR, dueSince: NOW - 3 * HOUR };
    expect(jobCheck(job, NOW)).toMatchObject({ ok: false, state: 'overdue' });
    const failing = jobCheck(
      { ...job, lastOutcome: 'failed', lastError: 'login failed: Password=hunter2-secret;' },
      NOW,
      ['hunter2-secret'],
    );
    expect(failing).toMatchObject({ ok: false, state: 'failing' });
    expect(failing.detail).toContain('last run failed');
    expect(failing.detail).not.toContain('hunter2-secret');
  });
});

describe('jobCheck: a job that has never succeeded', () => {
  const job = { name: 'orders', freshnessMs: HOUR, watchingSince: NOW - 10 * 60_000 };

  it('is failing as soon as a run failed, not after its freshness', () => {
    const check = jobCheck({ ...job, lastOutcome: 'failed', lastError: '401 key_expired' }, NOW);
    expect(check).toMatchObject({ ok: false, state: 'failing' });
    expect(check.detail).toBe('has never succeeded; last run failed: 401 key_expired');
  });

  it('is overdue once its freshness has passed since the daemon started, and not before', () => {
    expect(jobCheck(job, NOW)).toMatchObject({ ok: true });
    expect(jobCheck({ ...job, watchingSince: NOW - HOUR - 1 }, NOW)).toMatchObject({
      ok: false,
      state: 'overdue',
    });
  });

  it('is judged by its freshness window again once it has succeeded', () => {
    const succeeded = {
      ...job,
      lastSuccessAt: NOW - 5 * 60_000,
      lastOutcome: 'failed',
      dueSince: NOW - 60_000,
    };
    expect(jobCheck(succeeded, NOW)).toMatchObject({ ok: true, state: 'due' });
  });
});

describe('jobCheck: a job held back by the statement pre-flight', () => {
  it('fails at once with the reason, with or without a freshness setting, and scrubs secrets from it', () => {
    const reason =
      'c.yaml: connectors.erp.statements.orders.insert_line: parameter :unit_pricee (pw hunter2)';
    const held = { name: 'orders', preflightError: reason, lastSuccessAt: NOW - 1000, freshnessMs: HOUR };
    const check = jobCheck(held, NOW, ['hunter2']);
    expect(check).toMatchObject({ ok: false, state: 'failing' });
    expect(check.detail).toContain(':unit_pricee');
    expect(check.detail).not.toContain('hunter2');
    expect(jobCheck({ name: 'orders', preflightError: reason }, NOW)).toMatchObject({
      ok: false,
      state: 'failing',
    });
    expect(jobCheck({ name: 'orders', lastSuccessAt: NOW - 1000, freshnessMs: HOUR }, NOW)).toMatchObject({
      ok: true,
    });
  });
});

describe('ApiHealth: only an authenticated answer counts as reached', () => {
  const call = (status: number | null, errorCode: string | null, route = '/me') => ({
    side: 'supplier',
    method: 'GET',
    route,
    status,
    errorCode,
  });

  it('keeps a 401 as a standing refusal with the config key, reported once, until a success', () => {
    const health = new ApiHealth();
    const first = health.record(call(401, 'key_expired'), NOW);
    expect(first).toMatchObject({ code: 'key_expired', configKey: 'api.api_key', call: 'GET /me' });
    expect(health.record(call(401, 'key_expired'), NOW + 1)).toBeNull();
    expect(health.lastReachedAt).toBeUndefined();
    expect(health.credentialFailures()).toHaveLength(1);
    health.record(call(200, null), NOW + 2);
    expect(health.lastReachedAt).toBe(NOW + 2);
    expect(health.credentialFailures()).toEqual([]);
  });

  it('clears scope_missing only when the refused call succeeds', () => {
    const health = new ApiHealth();
    health.record(call(403, 'scope_missing', '/supplier/orders/{id}/acknowledge'), NOW);
    health.record(call(200, null), NOW + 1);
    expect(health.credentialFailures()).toEqual([expect.objectContaining({ code: 'scope_missing' })]);
    health.record(call(200, null, '/supplier/orders/{id}/acknowledge'), NOW + 2);
    expect(health.credentialFailures()).toEqual([]);
  });

  it('does not count a 5xx, a 429 or a dropped connection as reached', () => {
    const health = new ApiHealth();
    health.record(call(503, 'service_unavailable'), NOW);
    health.record(call(429, 'rate_limited'), NOW);
    health.record(call(null, 'network_error'), NOW);
    expect(health.lastReachedAt).toBeUndefined();
    expect(health.lastError).toBe('network_error');
  });
});
