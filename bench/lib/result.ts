/** Builders for BenchResult, so every module reports the same way. */
import { ratio } from './stats.js';
import type { Measure, MeasuredResult, NotMeasuredResult, TargetCheck } from './types.js';

export interface MeasuredInput {
  name: string;
  title: string;
  figure: Measure;
  baseline: Measure;
  /** Defaults to figure / baseline. */
  ratio?: number;
  checks: TargetCheck[];
  details?: Record<string, number | string>;
  notes?: string[];
  startedAt: number;
}

export function measured(input: MeasuredInput): MeasuredResult {
  return {
    name: input.name,
    title: input.title,
    status: 'measured',
    figure: input.figure,
    baseline: input.baseline,
    ratio: input.ratio ?? ratio(input.figure.value, input.baseline.value),
    checks: input.checks,
    details: input.details ?? {},
    notes: input.notes ?? [],
    durationMs: performance.now() - input.startedAt,
  };
}

export function notMeasured(
  bench: { name: string; title: string; target: string },
  reason: string,
  startedAt: number,
): NotMeasuredResult {
  return {
    name: bench.name,
    title: bench.title,
    status: 'not_measured',
    reason,
    target: bench.target,
    durationMs: performance.now() - startedAt,
  };
}

export function check(target: string, value: number, unit: string, pass: boolean): TargetCheck {
  return { target, value, unit, pass };
}
