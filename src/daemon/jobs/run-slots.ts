/**
 * How many runs go at once in an office daemon, over all its companies: a run waits for a free slot, and one company
 * holds at most half of the slots (at least one), so a company whose runs are slow (a slow ERP, a 429 storm) never
 * keeps the others waiting beyond its share.
 */
import type { JobRunFn } from './job-run.js';

interface Waiter {
  readonly owner: string;
  readonly grant: () => void;
}

export class RunSlots {
  #free: number;
  readonly #waiting: Waiter[] = [];
  readonly #byOwner = new Map<string, number>();
  /** The most slots one owner (a company) holds at once. */
  readonly perOwner: number;

  constructor(readonly size: number) {
    this.#free = size;
    this.perOwner = Math.max(1, Math.ceil(size / 2));
  }

  /** Runs `work` in a slot of `owner`'s, waiting for one first; an abort while waiting gives up the place. */
  async within<T>(work: () => Promise<T>, signal?: AbortSignal, owner = ''): Promise<T> {
    await this.#take(owner, signal);
    try {
      return await work();
    } finally {
      this.#give(owner);
    }
  }

  /** Runs in slots now. */
  get busy(): number {
    return this.size - this.#free;
  }

  #mayTake(owner: string): boolean {
    return this.#free > 0 && (this.#byOwner.get(owner) ?? 0) < this.perOwner;
  }

  #hold(owner: string): void {
    this.#free -= 1;
    this.#byOwner.set(owner, (this.#byOwner.get(owner) ?? 0) + 1);
  }

  #take(owner: string, signal: AbortSignal | undefined): Promise<void> {
    // A run waits only while it may not take a slot, and #give grants the first one that may: none waiting may now.
    if (this.#mayTake(owner)) {
      this.#hold(owner);
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        owner,
        grant: () => {
          signal?.removeEventListener('abort', aborted);
          resolve();
        },
      };
      const aborted = (): void => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', aborted, { once: true });
      this.#waiting.push(waiter);
    });
  }

  #give(owner: string): void {
    this.#free += 1;
    const held = (this.#byOwner.get(owner) ?? 1) - 1;
    if (held === 0) this.#byOwner.delete(owner);
    else this.#byOwner.set(owner, held);
    // The first waiter whose owner is under its share, in the order they asked.
    const index = this.#waiting.findIndex((waiter) => this.#mayTake(waiter.owner));
    if (index < 0) return;
    const [next] = this.#waiting.splice(index, 1) as [Waiter];
    this.#hold(next.owner);
    next.grant();
  }
}

/** A job runner whose runs each take a slot of `owner`'s (a company's). */
export function inSlots(run: JobRunFn, slots: RunSlots | undefined, owner = ''): JobRunFn {
  if (slots === undefined) return run;
  return (name, trigger, signal, requestedBy) =>
    slots.within(() => run(name, trigger, signal, requestedBy), signal, owner);
}
