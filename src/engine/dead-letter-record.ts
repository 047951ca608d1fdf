/**
 * What a dead letter of the pull stores: the item as the source sent it, and, when the flow named the mapping the
 * record lacks, that mapping beside it (`missing`), which the notifications group by and turn into a fix. A replay
 * hands the flow the item alone.
 */
import { missingMappingOf, type MissingMapping } from '../shared/missing-mapping.js';

export function letterRecord(item: unknown, missing: MissingMapping | undefined): unknown {
  if (missing === undefined || !isPlainRecord(item)) return item;
  return { ...item, missing };
}

/** The item a letter was filed for, without the `missing` this module added to it. */
export function itemOfLetter(record: unknown): unknown {
  if (!isPlainRecord(record) || missingMappingOf(record) === null) return record;
  const { missing: _missing, ...item } = record;
  return item;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
