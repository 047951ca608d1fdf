/**
 * Lenient response parsing: a resource that fails its schema is quarantined with its reason instead of failing
 * the page; unknown enum values and fields are tolerated and counted as schema drift.
 */
export interface QuarantinedItem {
  resource: string;
  /** Position in the page's data array. */
  index: number;
  raw: unknown;
  reason: string;
}

export type ParseResult<T> = { ok: true; value: T; drift: readonly string[] } | { ok: false; reason: string };

export interface ResourceParser<T> {
  readonly resource: string;
  parse(raw: unknown): ParseResult<T>;
}

export interface DriftEvent {
  resource: string;
  kind: 'quarantined' | 'drift';
  /** For drift: what was unexpected (an unknown enum value or field); for quarantine: the reason. */
  detail: string;
}

export type DriftListener = (event: DriftEvent) => void;

/** Per-client drift counts, exposed for metrics and `status`. */
export class DriftCounter {
  private readonly counts = new Map<string, { quarantined: number; drift: number }>();

  constructor(private readonly listener?: DriftListener) {}

  record(event: DriftEvent): void {
    const entry = this.counts.get(event.resource) ?? { quarantined: 0, drift: 0 };
    entry[event.kind] += 1;
    this.counts.set(event.resource, entry);
    this.listener?.(event);
  }

  snapshot(): Record<string, { quarantined: number; drift: number }> {
    return Object.fromEntries([...this.counts].map(([resource, entry]) => [resource, { ...entry }]));
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses one item, counting drift; returns undefined (and counts) when the item is quarantined. */
export function parseItem<T>(
  parser: ResourceParser<T>,
  raw: unknown,
  index: number,
  drift: DriftCounter,
): { value: T } | { quarantined: QuarantinedItem } {
  const result = parser.parse(raw);
  if (!result.ok) {
    drift.record({ resource: parser.resource, kind: 'quarantined', detail: result.reason });
    return { quarantined: { resource: parser.resource, index, raw, reason: result.reason } };
  }
  for (const detail of result.drift) drift.record({ resource: parser.resource, kind: 'drift', detail });
  return { value: result.value };
}
