import { describe, expect, it } from 'vitest';
import { renderMarkdown, type RunReport } from '../../bench/lib/report.js';
import { check, measured, notMeasured } from '../../bench/lib/result.js';

const machine = {
  cpuModel: 'Test CPU',
  cpuCount: 2,
  memoryGiB: 4,
  os: 'linux test',
  node: 'v20.0.0',
  date: '2026-01-01T00:00:00.000Z',
  loadAverageAtStart: 0.5,
};

describe('measured results', () => {
  it('computes the ratio from figure and baseline unless given', () => {
    const result = measured({
      name: 'x',
      title: 'X',
      figure: { label: 'f', value: 300, unit: 'req/s' },
      baseline: { label: 'b', value: 1_200, unit: 'req/s' },
      checks: [],
      startedAt: performance.now(),
    });
    expect(result.ratio).toBe(0.25);
    expect(result.status).toBe('measured');
  });
});

describe('renderMarkdown', () => {
  const report: RunReport = {
    machine,
    quick: false,
    only: null,
    conditions: ['Other work shared the machine.'],
    results: [
      measured({
        name: 'webhook-ingest',
        title: 'Webhook ingest',
        figure: { label: 'receiver', value: 12_000, unit: 'events/s' },
        baseline: { label: 'bare', value: 24_000, unit: 'requests/s' },
        checks: [check('ratio >= 0.4', 0.5, '', true), check('p99 < 20 ms', 31, 'ms', false)],
        details: { 'p50 (ms)': 2.5 },
        notes: ['A note.'],
        startedAt: performance.now(),
      }),
      notMeasured({ name: 'latency', title: 'Latency', target: 'p99 < 250 ms' }, 'the flow is not there', 0),
    ],
  };
  const text = renderMarkdown(report);

  it('names the machine and the run conditions', () => {
    expect(text).toContain('- CPU: Test CPU x 2');
    expect(text).toContain('- Node.js: v20.0.0');
    expect(text).toContain('- Other work shared the machine.');
  });

  it('shows figure, baseline, ratio and a miss when any target is missed', () => {
    const row = text.split('\n').find((line) => line.startsWith('| Webhook ingest |'));
    expect(row).toBeDefined();
    expect(row).toContain('receiver: 12,000 events/s');
    expect(row).toContain('bare: 24,000 requests/s');
    expect(row).toContain('| 0.500 |');
    expect(row).toContain('p99 < 20 ms: 31 ms ✗');
    expect(row?.endsWith('| miss |')).toBe(true);
  });

  it('says why a benchmark was not measured instead of showing a number', () => {
    const row = text.split('\n').find((line) => line.startsWith('| Latency |'));
    expect(row).toContain('not measured: the flow is not there');
    expect(row?.endsWith('| not measured |')).toBe(true);
  });

  it('appends the profile summaries after the details, and nothing when there are none', () => {
    const withAppendix = renderMarkdown({ ...report, appendix: '## Where the time goes\n\n| a | 1 % |\n' });
    expect(withAppendix.trimEnd().endsWith('## Where the time goes\n\n| a | 1 % |')).toBe(true);
    expect(withAppendix.indexOf('## Where the time goes')).toBeGreaterThan(
      withAppendix.indexOf('## Details'),
    );
    expect(text).not.toContain('## Where the time goes');
  });
});
