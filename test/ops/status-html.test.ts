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

describe('the status page lists each dead letter once', () => {
  const letter = (recordKey: string, reason: string) => ({
    recordKey,
    reason,
    lastSeen: Date.parse('2026-11-25T09:00:00.000Z'),
  });
  const deadLetters: StatusSnapshot['deadLetters'] = {
    open: 3,
    flows: [
      {
        flow: 'orders',
        open: 3,
        latest: [
          letter('ord_1001', 'sku VEG-0001 unmapped'),
          letter('ord_1002', 'sku VEG-0001 unmapped'),
          letter('ord_1003', 'customer unknown'),
        ],
      },
    ],
  };
  const console: NonNullable<StatusSnapshot['console']> = {
    jobs: [],
    deadLetterGroups: [
      {
        flow: 'orders',
        reason: 'sku VEG-0001 unmapped',
        count: 2,
        ids: [7, 8],
        keys: ['ord_1001', 'ord_1002'],
        retrying: [8],
      },
      { flow: 'orders', reason: 'customer unknown', count: 1, ids: [9], keys: ['ord_1003'], retrying: [] },
    ],
  };
  const times = (html: string, text: string) => html.split(text).length - 1;

  it('with the console: each letter by id and record key under its reason, the Dead letters section counts only', () => {
    const html = renderStatusHtml(snapshot({ deadLetters, console }), { controls: true });
    for (const key of ['ord_1001', 'ord_1002', 'ord_1003']) expect(times(html, key)).toBe(1);
    expect(html).toContain('<li data-dead-letter="7">#7 ord_1001 <button');
    expect(html).toContain('<li data-dead-letter="8" data-retrying>#8 ord_1002 (retrying) <button');
    const section = html.slice(html.indexOf('<h2>Dead letters</h2>'), html.indexOf('<h2>Outbox</h2>'));
    expect(section).toContain('3 open in all, each listed under "Dead letters by reason" above.');
    expect(section).toContain('<tr class="failing"><td>orders</td><td>3</td></tr>');
    expect(section).not.toContain('Latest reasons');
  });

  it('without the console: the Dead letters section lists the latest letters with their reasons, once each', () => {
    const html = renderStatusHtml(snapshot({ deadLetters }));
    for (const key of ['ord_1001', 'ord_1002', 'ord_1003']) expect(times(html, key)).toBe(1);
    expect(html).toContain('<li>ord_1003: customer unknown');
    expect(html).not.toContain('Dead letters by reason');
  });

  it('says how many more letters a large group holds than it lists', () => {
    const ids = Array.from({ length: 25 }, (_, i) => i + 1);
    const big: NonNullable<StatusSnapshot['console']> = {
      jobs: [],
      deadLetterGroups: [
        { flow: 'orders', reason: 'r', count: 25, ids, keys: ids.map((id) => `ord_${id}`), retrying: [] },
      ],
    };
    const html = renderStatusHtml(snapshot({ console: big }));
    expect(times(html, 'data-dead-letter=')).toBe(20);
    expect(html).toContain('<li class="muted">and 5 more</li>');
  });
});
