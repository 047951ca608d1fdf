/** Small, exact statistics for benchmark figures (tested in test/bench/stats.test.ts). */

/**
 * The p-th percentile (0..100) by the nearest-rank method: the smallest value with at least p% of the samples
 * at or below it. NaN for no samples.
 */
export function percentile(samples: ArrayLike<number>, p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile must be within 0..100, got ${p}`);
  const n = samples.length;
  if (n === 0) return Number.NaN;
  const sorted = Float64Array.from(samples).sort();
  const rank = Math.max(1, Math.ceil((p / 100) * n));
  return sorted[rank - 1] ?? Number.NaN;
}

export interface Summary {
  count: number;
  min: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samples: ArrayLike<number>): Summary {
  const n = samples.length;
  let sum = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const value = samples[i] ?? 0;
    sum += value;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return {
    count: n,
    min: n === 0 ? Number.NaN : min,
    p50: percentile(samples, 50),
    p90: percentile(samples, 90),
    p99: percentile(samples, 99),
    max: n === 0 ? Number.NaN : max,
    mean: n === 0 ? Number.NaN : sum / n,
  };
}

/** figure / baseline; NaN when the baseline is not a positive number (never a silent Infinity). */
export function ratio(figure: number, baseline: number): number {
  if (!(baseline > 0) || !Number.isFinite(figure)) return Number.NaN;
  return figure / baseline;
}

/** Events per second from a count and an elapsed time in milliseconds. */
export function perSecond(count: number, elapsedMs: number): number {
  if (!(elapsedMs > 0)) return Number.NaN;
  return (count * 1000) / elapsedMs;
}

/** Rounds for display: 3 significant digits for small values, whole numbers from 1000 up. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  if (Number.isInteger(value)) return value.toLocaleString('en-US');
  const abs = Math.abs(value);
  if (abs >= 1000) return Math.round(value).toLocaleString('en-US');
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

/** A check of `value` against `limit` with the given comparison. */
export function meets(value: number, comparison: '>=' | '<' | '<=' | '==', limit: number): boolean {
  if (!Number.isFinite(value)) return false;
  switch (comparison) {
    case '>=':
      return value >= limit;
    case '<':
      return value < limit;
    case '<=':
      return value <= limit;
    case '==':
      return value === limit;
  }
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  /** (max - min) / median, in percent: how far apart the repetitions landed. */
  spreadPct: number;
}

/** Median and range of a benchmark's repetitions (the median of an even count is the mean of the middle two). */
export function spreadOf(values: readonly number[]): Spread {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, spreadPct: Number.NaN };
  const middle = Math.floor(n / 2);
  const median =
    n % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
  const min = sorted[0] ?? Number.NaN;
  const max = sorted[n - 1] ?? Number.NaN;
  return { median, min, max, spreadPct: median > 0 ? (100 * (max - min)) / median : Number.NaN };
}

/** "0.512 (0.498 to 0.530, spread 6.3 %)". */
export function spreadText(spread: Spread): string {
  return `${formatNumber(spread.median)} (${formatNumber(spread.min)} to ${formatNumber(spread.max)}, spread ${spread.spreadPct.toFixed(1)} %)`;
}
