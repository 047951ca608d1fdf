/**
 * How many companies' runs go at once in an office daemon: a run waits for a free slot, so a company whose runs
 * are slow (a slow ERP, a 429 storm) holds at most its slots and never delays the others beyond them.
 */
import type { JobRunFn } from './job-run.js';

export class RunSlots {
  #free: number;
  readonly #waiting: Array<() => void> = [];

  constructor(readonly size: number) {
    this.#free = size;
  }

  /** Runs `work` in a slot, waiting for one first; an abort while waiting gives up the place in the queue. */
  async within<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.#take(signal);
    try {
      return await work();
    } finally {
      this.#give();
    }
  }

  /** Runs in use now. */
  get busy(): number {
    return this.size - this.#free;
  }

  #take(signal: AbortSignal | undefined): Promise<void> {
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const granted = (): void => {
        signal?.removeEventListener('abort', aborted);
        resolve();
      };
      const aborted = (): void => {
        const index = this.#waiting.indexOf(granted);
        if (index >= 0) this.#waiting.splice(index, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      signal?.addEventListener('abort', aborted, { once: true });
      this.#waiting.push(granted);
    });
  }

  #give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#free += 1;
    else next();
  }
}

/** A job runner whose runs each take a slot. */
export function inSlots(run: JobRunFn, slots: RunSlots | undefined): JobRunFn {
  if (slots === undefined) return run;
  return (name, trigger, signal, requestedBy) =>
    slots.within(() => run(name, trigger, signal, requestedBy), signal);
}
