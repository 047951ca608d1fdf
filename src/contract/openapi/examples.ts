/**
 * Example values for the contract's string patterns (money, quantity, period...), added to every schema that
 * carries one: readers and generators see a well-formed value, and sample-based tools build valid requests.
 */
import { MONEY_PATTERN, QUANTITY_PATTERN } from '../../shared/decimal.js';
import { ACCOUNTING_PERIOD_PATTERN } from '../formats.js';
import { CURSOR_RULES } from '../gaps.js';
import { WEBHOOK_URL_PATTERN } from '../requests-platform.js';
import type { JsonObject } from './types.js';

export const PATTERN_EXAMPLES: ReadonlyMap<string, string> = new Map([
  [MONEY_PATTERN.source, '118.00'],
  [QUANTITY_PATTERN.source, '12.5'],
  [ACCOUNTING_PERIOD_PATTERN.source, '2026-11'],
  ['^(?:[01]\\d|2[0-3]):[0-5]\\d$', '06:30'],
  ['^[0-9a-f]{64}$', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
  [CURSOR_RULES.pattern.source, 'eyJhdCI6MX0'],
  [WEBHOOK_URL_PATTERN, 'https://localhost:8443/webhooks'],
]);

/** Adds `examples` to every schema (nested anywhere in `node`) whose pattern has a known example. */
export function withPatternExamples<T>(node: T): T {
  if (Array.isArray(node)) return node.map((item: unknown) => withPatternExamples(item)) as T;
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) out[key] = withPatternExamples(value);
  const pattern = out['pattern'];
  const example = typeof pattern === 'string' ? PATTERN_EXAMPLES.get(pattern) : undefined;
  if (example !== undefined && out['examples'] === undefined) out['examples'] = [example];
  return out as T;
}
