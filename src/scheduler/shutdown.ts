import { performance } from 'node:perf_hooks';

/** Graceful shutdown on SIGTERM/SIGINT: stop new work, abort running jobs, wait a bounded time, then exit. */
export interface ShutdownOptions {
  /** Stops everything; resolves when done or when its own bound has passed. */
  readonly shutdown: (reason: string) => Promise<void>;
  /**
   * Called once shutdown has completed (normally process.exit). A second signal, later than REPEAT_WINDOW_MS after
   * the first, calls it at once with code 130.
   */
  readonly exit: (code: number) => void;
  /** Told of a signal during the shutdown: `forced` when it ends the process now, else taken as the first again. */
  readonly onRepeat?: (signal: NodeJS.Signals, forced: boolean) => void;
  readonly signals?: readonly NodeJS.Signals[];
  readonly target?: Pick<NodeJS.Process, 'on' | 'off'>;
  /** Monotonic milliseconds; performance.now() by default. */
  readonly now?: () => number;
}

/**
 * A signal this soon after the first is the same request delivered twice (a supervisor and the process group, or
 * npm forwarding what the terminal sent), not an operator asking for a stop without the clean-up.
 */
export const REPEAT_WINDOW_MS = 1_000;

/** Installs the handlers; returns a function that removes them. */
export function handleShutdownSignals(options: ShutdownOptions): () => void {
  const target = options.target ?? process;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const now = options.now ?? (() => performance.now());
  let firstAt: number | undefined;
  /** The stop has ended: the process is exiting with its outcome, which a late signal does not change. */
  let stopped = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopped) return;
    if (firstAt !== undefined) {
      const forced = now() - firstAt > REPEAT_WINDOW_MS;
      options.onRepeat?.(signal, forced);
      if (forced) options.exit(130);
      return;
    }
    firstAt = now();
    const end = (code: number) => {
      stopped = true;
      options.exit(code);
    };
    options.shutdown(signal).then(
      () => end(0),
      () => end(1),
    );
  };
  for (const signal of signals) target.on(signal, onSignal);
  return () => {
    for (const signal of signals) target.off(signal, onSignal);
  };
}
