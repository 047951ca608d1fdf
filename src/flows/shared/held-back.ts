/**
 * Why a flow held records back, grouped for the run's tally (engine judgeRun): records held for a value a mapping
 * lacks are counted under that value, so a failed run's error names what to add and for how many records.
 */
import type { RunTally } from '../../engine/index.js';
import { missingMappingSummary, type MissingMapping } from '../../shared/missing-mapping.js';

export type HeldBackReasons = Record<string, number>;

/** Counts one held-back record under its missing mapping; records held for other reasons are counted by the tally. */
export function countHeldBack(reasons: HeldBackReasons, missing: MissingMapping | undefined): void {
  if (missing === undefined) return;
  const reason = missingMappingSummary(missing);
  reasons[reason] = (reasons[reason] ?? 0) + 1;
}

/**
 * Counts one held-back record under a reason in words (the API's refusal, a branch it does not know). A position in
 * a batch (`items[3]`) is left out, so that records refused alike are counted under one reason.
 */
export function countHeldBackFor(reasons: HeldBackReasons | undefined, reason: string): void {
  if (reasons === undefined) return;
  const grouped = reason.replace(/\[\d+\]/g, '[]');
  reasons[grouped] = (reasons[grouped] ?? 0) + 1;
}

/** Counts one held-back record once under each of its missing mappings, so every one is named with its count. */
export function countHeldBackForEach(
  reasons: HeldBackReasons,
  missing: readonly MissingMapping[] | undefined,
): void {
  for (const each of missing ?? []) countHeldBack(reasons, each);
}

/** A tally from the run's counts: the sum of the counts that name delivered records, and of those held back. */
export function tallyOf(
  counts: Readonly<Record<string, number>>,
  unit: string,
  names: { readonly delivered: readonly string[]; readonly heldBack: readonly string[] },
  reasons?: HeldBackReasons,
): RunTally {
  const sum = (list: readonly string[]) => list.reduce((total, name) => total + (counts[name] ?? 0), 0);
  const tally = { unit, delivered: sum(names.delivered), heldBack: sum(names.heldBack) };
  return reasons === undefined ? tally : { ...tally, reasons };
}
