/** The shapes every benchmark module shares with the runner. */

export interface BenchOptions {
  /** Short durations and small counts, for smoke runs; figures are then indicative only. */
  quick: boolean;
  /** Progress lines for the terminal. */
  log: (line: string) => void;
}

/** One measured quantity with its unit, e.g. { value: 412.5, unit: 'pages/s' }. */
export interface Measure {
  label: string;
  value: number;
  unit: string;
}

/** One target of issue 7, checked against a measured value. */
export interface TargetCheck {
  /** e.g. "ratio >= 0.4" or "p99 < 20 ms". */
  target: string;
  value: number;
  unit: string;
  pass: boolean;
}

export interface MeasuredResult {
  name: string;
  title: string;
  status: 'measured';
  figure: Measure;
  baseline: Measure;
  /** figure / baseline (both in the same unit, higher is better unless the module says otherwise). */
  ratio: number;
  checks: TargetCheck[];
  /** Further figures worth keeping (latency percentiles, counts, sizes). */
  details: Record<string, number | string>;
  notes: string[];
  durationMs: number;
}

export interface NotMeasuredResult {
  name: string;
  title: string;
  status: 'not_measured';
  reason: string;
  target: string;
  durationMs: number;
}

export type BenchResult = MeasuredResult | NotMeasuredResult;

export interface Benchmark {
  name: string;
  title: string;
  /** The target as issue 7 states it, shown also when the benchmark could not run. */
  target: string;
  run(options: BenchOptions): Promise<BenchResult>;
}
