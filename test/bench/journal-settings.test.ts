import { describe, expect, it } from 'vitest';
import { journalSettings } from '../../bench/journal-export.js';

describe('journal-export benchmark settings', () => {
  it('runs 1,000,000 lines by default and a small count with --quick', () => {
    expect(journalSettings(false, {})).toMatchObject({ lines: 1_000_000, chosenBy: 'default' });
    expect(journalSettings(true, {})).toMatchObject({ lines: 5_000, chosenBy: 'quick' });
  });

  it('takes the count from BENCH_JOURNAL_LINES when it is a whole number of at least 3', () => {
    expect(journalSettings(false, { BENCH_JOURNAL_LINES: '50000' })).toMatchObject({
      lines: 50_000,
      chosenBy: 'BENCH_JOURNAL_LINES',
    });
    expect(journalSettings(false, { BENCH_JOURNAL_LINES: '2' })).toMatchObject({ lines: 1_000_000 });
    expect(journalSettings(false, { BENCH_JOURNAL_LINES: 'many' })).toMatchObject({ lines: 1_000_000 });
  });

  it('bounds seeding and the flow in time', () => {
    const full = journalSettings(false, {});
    expect(full.seedCapMs).toBeGreaterThan(0);
    expect(full.flowCapMs).toBeGreaterThan(0);
  });
});
