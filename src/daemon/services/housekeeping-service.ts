/** State housekeeping (pruning old runs, dispatched events, sent outbox rows): at start, then hourly. */
import { pruneState } from '../../engine/index.js';
import type { Environment } from './environment.js';
import { every, stopLoop, type Loop } from './every.js';
import type { Service, StopOptions } from './service.js';

const HOUSEKEEPING_INTERVAL_MS = 60 * 60_000;

export class HousekeepingService implements Service {
  readonly name = 'state housekeeping';
  #loop: Loop | undefined;

  constructor(private readonly env: Environment) {}

  /** A second start while running does nothing. */
  async start(): Promise<void> {
    const { env } = this;
    if (this.#loop !== undefined) return;
    const housekeeping = (): void => {
      const { history } = env.loaded.config.state;
      const pruned = pruneState(env.state, { runsMaxAgeMs: history.keep, runsMax: history.max_runs });
      env.logger.debug({ pruned }, 'state housekeeping');
    };
    housekeeping();
    this.#loop = every(
      env.clock,
      HOUSEKEEPING_INTERVAL_MS,
      housekeeping,
      (error) => env.logger.warn({ err: error }, 'state housekeeping failed'),
      env.loopClock,
    );
  }

  async stop(options: StopOptions): Promise<void> {
    const loop = this.#loop;
    this.#loop = undefined;
    await stopLoop(loop, options, this.env.logger, 'state housekeeping');
  }
}
