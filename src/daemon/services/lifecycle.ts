/**
 * The one place services are started in order and stopped in reverse: after a normal stop, after a failed start
 * and after a start that was asked to stop (its abort signal) before it completed.
 */
import type { Logger } from 'pino';
import type { Service, StopOptions } from './service.js';

export type LifecycleLog = Pick<Logger, 'warn' | 'error'>;

/** Told of each step: logs, and tests that make a step fail or check the order. */
export interface LifecycleObserver {
  /** Before a service starts; throwing here fails that service's start. */
  starting?(service: string): void;
  started?(service: string): void;
  stopped?(service: string): void;
}

/** A start given up because its abort signal fired (SIGTERM while starting, a leader's term lost). */
export class StartAbortedError extends Error {
  override readonly name = 'StartAbortedError';
  constructor(options?: ErrorOptions) {
    super('the start was stopped before it completed', options);
  }
}

/** Some services' stop failed; the others were stopped. Names the services that may still hold resources. */
export class ServicesStopError extends Error {
  override readonly name = 'ServicesStopError';
  constructor(
    readonly services: readonly string[],
    readonly errors: readonly unknown[],
  ) {
    super(`failed to stop: ${services.join(', ')}`, { cause: errors[0] });
  }
}

export class Lifecycle {
  readonly #started: Service[] = [];
  #stopping: Promise<void> | undefined;

  /**
   * `log` is read when a stop fails: the logger may be built by the first service. Once `signal` is aborted no
   * further service starts, and the start under way is told through the signal it is given.
   */
  constructor(
    private readonly log: () => LifecycleLog,
    private readonly observer: LifecycleObserver = {},
    private readonly signal?: AbortSignal,
  ) {}

  /** Starts `service` after every service started before it, and returns it. */
  async start<S extends Service>(service: S): Promise<S> {
    this.#throwIfAborted();
    this.observer.starting?.(service.name);
    try {
      await service.start(this.signal);
    } catch (error) {
      // A start given up through the signal undid its own work: the abort is what to report, not its reason.
      if (this.signal?.aborted === true) throw new StartAbortedError({ cause: error });
      throw error;
    }
    this.#started.push(service);
    this.observer.started?.(service.name);
    // Asked to stop while this service started: it is started, so startServices stops it with the others.
    this.#throwIfAborted();
    return service;
  }

  /** Names of the started services, in start order. */
  started(): readonly string[] {
    return this.#started.map((service) => service.name);
  }

  /**
   * Stops every started service, last started first. A failing stop is logged and the others still stop; then the
   * stop rejects with a ServicesStopError naming every service that failed. A stop asked for while one is under
   * way (a second signal) waits for that one instead of stopping services twice.
   */
  stop(options: StopOptions): Promise<void> {
    this.#stopping ??= this.#stopAll(options).finally(() => {
      this.#stopping = undefined;
    });
    return this.#stopping;
  }

  async #stopAll(options: StopOptions): Promise<void> {
    const failed: string[] = [];
    const errors: unknown[] = [];
    for (let service = this.#started.pop(); service !== undefined; service = this.#started.pop()) {
      try {
        await service.stop(options);
        this.observer.stopped?.(service.name);
      } catch (error) {
        const inner = error instanceof ServicesStopError ? ` (${error.services.join(', ')})` : '';
        failed.push(`${service.name}${inner}`);
        errors.push(error);
        this.log().error({ err: error, service: service.name }, 'a service failed to stop');
      }
    }
    if (failed.length > 0) throw new ServicesStopError(failed, errors);
  }

  #throwIfAborted(): void {
    if (this.signal?.aborted === true) throw new StartAbortedError();
  }
}

/**
 * Runs `compose`, which starts services through the lifecycle it is given, each built from what the ones before it
 * made. When `compose` throws, the services it started are stopped in reverse and its error is rethrown: a failure
 * of that stop is logged and never takes the place of the start error. After an aborted start, a failed stop is the
 * one error to report: it is thrown instead of the StartAbortedError.
 */
export async function startServices<T>(
  lifecycle: Lifecycle,
  stopAfterFailure: StopOptions,
  compose: (lifecycle: Lifecycle) => Promise<T>,
): Promise<T> {
  try {
    return await compose(lifecycle);
  } catch (error) {
    const stopError = await lifecycle.stop(stopAfterFailure).then(
      () => undefined,
      (failure: unknown) => failure, // each failure was logged by the lifecycle
    );
    throw error instanceof StartAbortedError && stopError !== undefined ? stopError : error;
  }
}
