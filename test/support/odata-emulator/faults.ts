/**
 * Faults the emulated service injects, as the real ones fail: refusals before anything changed (429, 503), and
 * failures after the change was committed (a 500, a dropped connection, an answer that never comes).
 */
export type FaultKind = 'refuse' | 'fail-after-commit' | 'drop-after-commit' | 'hang-after-commit';

export interface Fault {
  readonly kind: FaultKind;
  /** For refuse and fail-after-commit. */
  readonly status?: number;
  readonly method?: string;
  /** Matched against the path after the service root (`Orders`, `$batch`). */
  readonly path?: RegExp;
}

export interface Chaos {
  /** A number in [0, 1) per call, seeded by the test. */
  readonly random: () => number;
  /** The share of writes (POST, PATCH) that fail, one of the kinds at random. */
  readonly rate: number;
}

export class FaultPlan {
  readonly #queue: Fault[] = [];
  chaos: Chaos | null = null;
  /** Faults injected, by kind. */
  readonly injected: Record<FaultKind, number> = {
    refuse: 0,
    'fail-after-commit': 0,
    'drop-after-commit': 0,
    'hang-after-commit': 0,
  };

  /** Fails the next request that matches, once. */
  next(fault: Fault): void {
    this.#queue.push(fault);
  }

  take(method: string, path: string): Fault | null {
    const index = this.#queue.findIndex(
      (fault) =>
        (fault.method === undefined || fault.method === method) &&
        (fault.path === undefined || fault.path.test(path)),
    );
    const fault = index >= 0 ? this.#queue.splice(index, 1)[0] : this.#chaos(method);
    if (fault !== undefined && fault !== null) this.injected[fault.kind] += 1;
    return fault ?? null;
  }

  #chaos(method: string): Fault | null {
    if (this.chaos === null || (method !== 'POST' && method !== 'PATCH')) return null;
    if (this.chaos.random() >= this.chaos.rate) return null;
    const kinds: Fault[] = [
      { kind: 'refuse', status: 429 },
      { kind: 'refuse', status: 503 },
      { kind: 'fail-after-commit', status: 500 },
      { kind: 'drop-after-commit' },
    ];
    return kinds[Math.floor(this.chaos.random() * kinds.length)] ?? null;
  }
}
