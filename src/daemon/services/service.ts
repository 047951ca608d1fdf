/**
 * A part of the daemon with a start and a stop: the lifecycle starts services in order and stops them in reverse,
 * also after a failed start. A service whose `start` fails undoes its own partial work before it rethrows; it is
 * not stopped, the ones started before it are.
 */
export interface StopOptions {
  /** How long running jobs and checks may take to end before the stop goes on without them. */
  readonly timeoutMs: number;
}

export interface Service {
  /** For logs: "scheduler", "ops server"... */
  readonly name: string;
  /** `signal` aborts when the start is given up (SIGTERM while starting): a slow step may end early. */
  start(signal?: AbortSignal): Promise<void>;
  stop(options: StopOptions): Promise<void>;
}
