import { describe, expect, it } from 'vitest';
import {
  formatNumber,
  meets,
  percentile,
  perSecond,
  ratio,
  spreadOf,
  spreadText,
  summarize,
} from '../../bench/lib/stats.js';

const oneToHundred = Array.from({ length: 100 }, (_, i) => i + 1);

describe('percentile (nearest rank)', () => {
  it('picks the smallest value with at least p% of the samples at or below it', () => {
    expect(percentile(oneToHundred, 50)).toBe(50);
    expect(percentile(oneToHundred, 99)).toBe(99);
    expect(percentile(oneToHundred, 99.5)).toBe(100);
    expect(percentile(oneToHundred, 100)).toBe(100);
    expect(percentile(oneToHundred, 0)).toBe(1);
  });

  it('sorts numerically without changing the caller’s array', () => {
    const samples = [10, 9, 100, 2, 1];
    expect(percentile(samples, 50)).toBe(9);
    expect(percentile(samples, 80)).toBe(10);
    expect(percentile(samples, 81)).toBe(100);
    expect(samples).toEqual([10, 9, 100, 2, 1]);
  });

  it('gives NaN for no samples and rejects a p outside 0..100', () => {
    expect(percentile([], 99)).toBeNaN();
    expect(percentile([7], 99)).toBe(7);
    expect(() => percentile([1], 101)).toThrow(RangeError);
    expect(() => percentile([1], -1)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('reports count, extremes, mean and percentiles', () => {
    const summary = summarize([4, 1, 3, 2]);
    expect(summary).toEqual({ count: 4, min: 1, p50: 2, p90: 4, p99: 4, max: 4, mean: 2.5 });
  });

  it('is all NaN but the count for no samples', () => {
    const summary = summarize([]);
    expect(summary.count).toBe(0);
    expect(summary.mean).toBeNaN();
    expect(summary.min).toBeNaN();
    expect(summary.p99).toBeNaN();
  });
});

describe('ratio and rates', () => {
  it('divides the figure by the baseline', () => {
    expect(ratio(200, 400)).toBe(0.5);
    expect(ratio(1_200, 1_000)).toBeCloseTo(1.2, 12);
  });

  it('never turns a missing baseline into Infinity', () => {
    expect(ratio(10, 0)).toBeNaN();
    expect(ratio(10, Number.NaN)).toBeNaN();
    expect(ratio(Number.NaN, 10)).toBeNaN();
  });

  it('computes events per second from milliseconds', () => {
    expect(perSecond(500, 250)).toBe(2_000);
    expect(perSecond(3, 0)).toBeNaN();
  });
});

describe('meets', () => {
  it('compares and fails on non-numbers', () => {
    expect(meets(0.4, '>=', 0.4)).toBe(true);
    expect(meets(0.39, '>=', 0.4)).toBe(false);
    expect(meets(19.9, '<', 20)).toBe(true);
    expect(meets(20, '<', 20)).toBe(false);
    expect(meets(2, '==', 2)).toBe(true);
    expect(meets(Number.NaN, '<', 20)).toBe(false);
  });
});

describe('formatNumber', () => {
  it('keeps whole numbers whole and rounds the rest by size', () => {
    expect(formatNumber(28_000)).toBe('28,000');
    expect(formatNumber(2)).toBe('2');
    expect(formatNumber(1234.56)).toBe('1,235');
    expect(formatNumber(412.5)).toBe('413');
    expect(formatNumber(12.345)).toBe('12.3');
    expect(formatNumber(1.2345)).toBe('1.23');
    expect(formatNumber(0.012345)).toBe('0.0123');
    expect(formatNumber(Number.NaN)).toBe('n/a');
  });
});

describe('spreadOf', () => {
  it('gives the median and the range of the repetitions in percent of the median', () => {
    expect(spreadOf([0.5, 0.6, 0.4])).toEqual({
      median: 0.5,
      min: 0.4,
      max: 0.6,
      spreadPct: expect.closeTo(40, 9) as number,
    });
    expect(spreadOf([4, 1, 3, 2]).median).toBe(2.5);
  });

  it('ignores values that are not numbers and is NaN for none', () => {
    expect(spreadOf([Number.NaN, 2]).median).toBe(2);
    expect(Number.isNaN(spreadOf([]).median)).toBe(true);
  });

  it('prints the median, the range and the spread', () => {
    expect(spreadText(spreadOf([0.5, 0.6, 0.4]))).toBe('0.500 (0.400 to 0.600, spread 40.0 %)');
  });
});
