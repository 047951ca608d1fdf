/**
 * Failed logins per address: after MAX_FAILURES within WINDOW_MS an address gets 429 until its window ends, right
 * or wrong credentials alike, so guessing stays slow. At most MAX_ADDRESSES are remembered (the oldest go first),
 * so a flood of addresses cannot grow the memory.
 */
export interface LoginThrottleOptions {
  readonly maxFailures?: number;
  readonly windowMs?: number;
  readonly maxAddresses?: number;
  readonly now?: () => number;
}

interface Failures {
  count: number;
  readonly since: number;
}

export interface LoginThrottle {
  /** Seconds to wait before trying again, or 0 when the address may try. */
  retryAfterSeconds(address: string): number;
  failed(address: string): void;
  /** How many addresses are remembered (for tests of the bound). */
  readonly size: number;
}

export function createLoginThrottle(options: LoginThrottleOptions = {}): LoginThrottle {
  const maxFailures = options.maxFailures ?? 10;
  const windowMs = options.windowMs ?? 5 * 60_000;
  const maxAddresses = options.maxAddresses ?? 10_000;
  const now = options.now ?? Date.now;
  const byAddress = new Map<string, Failures>();

  const current = (address: string): Failures | undefined => {
    const entry = byAddress.get(address);
    if (entry !== undefined && now() - entry.since >= windowMs) {
      byAddress.delete(address);
      return undefined;
    }
    return entry;
  };

  return {
    retryAfterSeconds(address) {
      const entry = current(address);
      if (entry === undefined || entry.count < maxFailures) return 0;
      return Math.max(1, Math.ceil((entry.since + windowMs - now()) / 1000));
    },
    failed(address) {
      const entry = current(address);
      if (entry !== undefined) {
        entry.count += 1;
        return;
      }
      if (byAddress.size >= maxAddresses) {
        const oldest = byAddress.keys().next().value;
        if (oldest !== undefined) byAddress.delete(oldest);
      }
      byAddress.set(address, { count: 1, since: now() });
    },
    get size() {
      return byAddress.size;
    },
  };
}
