/** Graceful shutdown on SIGTERM/SIGINT: stop new work, abort running jobs, wait a bounded time, then exit. */
export interface ShutdownOptions {
  /** Stops everything; resolves when done or when its own bound has passed. */
  readonly shutdown: (reason: string) => Promise<void>;
  /** Called once shutdown has completed (normally process.exit). A second signal calls it at once with code 130. */
  readonly exit: (code: number) => void;
  readonly signals?: readonly NodeJS.Signals[];
  readonly target?: Pick<NodeJS.Process, 'on' | 'off'>;
}

/** Installs the handlers; returns a function that removes them. */
export function handleShutdownSignals(options: ShutdownOptions): () => void {
  const target = options.target ?? process;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (shuttingDown) {
      options.exit(130);
      return;
    }
    shuttingDown = true;
    options.shutdown(signal).then(
      () => options.exit(0),
      () => options.exit(1),
    );
  };
  for (const signal of signals) target.on(signal, onSignal);
  return () => {
    for (const signal of signals) target.off(signal, onSignal);
  };
}
