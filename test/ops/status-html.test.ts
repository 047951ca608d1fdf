/** The status page's leadership line for each thing an instance can know about the election. */
import { describe, expect, it } from 'vitest';
import { renderStatusHtml } from '../../src/ops/status-html.js';
import type { StatusSnapshot } from '../../src/ops/status.js';

function snapshot(over: Partial<StatusSnapshot>): StatusSnapshot {
  return {
    generatedAt: '2026-11-25T10:00:00.000Z',
    headline: { level: 'ok', text: 'Ready: all jobs and connectors healthy' },
    version: '1.0.0',
    timezone: null,
    startedAt: null,
    ready: true,
    role: 'leader',
    instance: null,
    leader: null,
    leadershipError: null,
    reasons: [],
    jobs: [],
    deadLetters: null,
    outbox: null,
    connectors: [],
    api: null,
    ...over,
  };
}

const line = (s: StatusSnapshot) => /<p id="leadership">([^<]*)<\/p>/.exec(renderStatusHtml(s))?.[1];
const leader = { instance: 'sync-a', since: '2026-11-25T09:58:00.000Z', epoch: 4 };

describe('the status page says which instance runs the jobs', () => {
  it('says nothing of an election on a single instance', () => {
    expect(line(snapshot({}))).toBeUndefined();
  });

  it('names the leader, its start and its term, on the leader and on a standby', () => {
    expect(line(snapshot({ instance: 'sync-a', leader }))).toBe(
      'This instance (sync-a) leads since 2026-11-25 09:58:00 (2 min ago) (term 4) and runs the jobs.',
    );
    expect(line(snapshot({ role: 'standby', instance: 'sync-b', leader }))).toBe(
      'This instance (sync-b) stands by; sync-a leads since 2026-11-25 09:58:00 (2 min ago) (term 4) and runs the jobs.',
    );
  });

  it('tells "no instance leads" from "cannot tell", and escapes what it quotes', () => {
    expect(line(snapshot({ role: 'standby', instance: 'sync-b' }))).toBe(
      'This instance (sync-b) stands by; no instance leads, so no job runs.',
    );
    const error =
      'state.url: cannot use the PostgreSQL state database postgres://supply@db:5432/state (<refused>)';
    expect(line(snapshot({ role: 'standby', instance: 'sync-b', leadershipError: error }))).toBe(
      'This instance (sync-b) stands by; it cannot tell which instance leads: state.url: cannot use the PostgreSQL state database postgres://supply@db:5432/state (&lt;refused&gt;)',
    );
  });
});

describe('the status page shows times in the configured zone', () => {
  it("shows a pause's start in the configured zone, as it shows the job's runs", () => {
    const job: StatusSnapshot['jobs'][number] = {
      name: 'orders',
      schedule: '*/5 * * * *',
      running: false,
      lastRunAt: '2026-11-25T09:40:00.000Z',
      lastOutcome: 'ok',
      lastError: null,
      nextRunAt: null,
      lastSuccessAt: '2026-11-25T09:40:00.000Z',
      freshness: 'paused',
      freshnessDetail: 'paused since 2026-11-25T09:30:00.000Z by cli:ann@erp-host: ERP upgrade',
      attention: false,
      openDeadLetters: 0,
      paused: { since: '2026-11-25T09:30:00.000Z', by: 'cli:ann@erp-host', reason: 'ERP upgrade' },
    };
    const page = renderStatusHtml(snapshot({ timezone: 'Asia/Jerusalem', jobs: [job] }));
    // 09:40 UTC is 11:40 in Jerusalem in November (UTC+2).
    expect(page).toContain('2026-11-25 11:40:00 (20 min ago)');
    expect(page).toContain(
      'paused: paused since 2026-11-25 11:30:00 (30 min ago) by cli:ann@erp-host: ERP upgrade',
    );
    expect(page).not.toContain('09:30:00');
  });
});
