import { describe, expect, it } from 'vitest';
import { jobCheck } from '../../src/ops/index.js';

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
