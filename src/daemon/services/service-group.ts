/**
 * Services started and stopped together, as one service: the services only a leader runs, started when it wins a
 * term and stopped when it loses one, possibly in quick succession.
 */
import { Lifecycle, startServices, type LifecycleLog, type LifecycleObserver } from './lifecycle.js';
import type { Service, StopOptions } from './service.js';

export type ServiceGroupState = 'stopped' | 'starting' | 'running' | 'stopping';

/**
 * One state machine: starts and stops take effect one after the other, in the order they were asked for, so the
 * group ends in the state of the last call. A start while running (or while starting) does nothing; a stop while
 * stopped does nothing; a stop during a start waits for that start and then stops what it started. A start that
 * fails leaves the group stopped; a stop that fails leaves it stopped too (what failed is logged and named in the
 * error), so the next start starts every service again.
 */
export class ServiceGroup implements Service {
  #state: ServiceGroupState = 'stopped';
  #running: Lifecycle | undefined;
  /** The last start or stop asked for; the next one waits for it. */
  #queue: Promise<void> = Promise.resolve();

  constructor(
    readonly name: string,
    private readonly services: readonly Service[],
    private readonly log: () => LifecycleLog,
    private readonly stopAfterFailure: StopOptions,
    private readonly observer: LifecycleObserver = {},
  ) {}

  get state(): ServiceGroupState {
    return this.#state;
  }

  /** Starts the group's services in order; `signal` gives up a start under way (what started is stopped). */
  start(signal?: AbortSignal): Promise<void> {
    return this.#next(async () => {
      if (this.#state === 'running') return;
      this.#state = 'starting';
      const lifecycle = new Lifecycle(this.log, this.observer, signal);
      try {
        await startServices(lifecycle, this.stopAfterFailure, async (group) => {
          for (const service of this.services) await group.start(service);
        });
      } catch (error) {
        this.#state = 'stopped';
        throw error;
      }
      this.#running = lifecycle;
      this.#state = 'running';
    });
  }

  stop(options: StopOptions): Promise<void> {
    return this.#next(async () => {
      const running = this.#running;
      if (this.#state !== 'running' || running === undefined) return;
      this.#state = 'stopping';
      this.#running = undefined;
      try {
        await running.stop(options);
      } finally {
        this.#state = 'stopped';
      }
    });
  }

  #next(step: () => Promise<void>): Promise<void> {
    const result = this.#queue.then(step);
    this.#queue = result.catch(() => undefined); // the caller of that step gets its error
    return result;
  }
}
