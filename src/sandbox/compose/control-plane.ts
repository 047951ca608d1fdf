/** What the control plane under /_sandbox/ may do to the running sandbox: reset, advance the clock, read out. */
import type { ControlDeps } from '../harness/routes.js';
import type { FaultInjector } from '../harness/faults.js';
import type { Simulator } from '../harness/simulator.js';
import type { PlatformContext } from '../platform/context.js';
import { isAdvanceable } from '../platform/manual-clock.js';
import type { StateFile } from '../platform/persistence.js';
import type { RateLimiter } from '../platform/rate-limit.js';
import type { SandboxAccounts } from './accounts.js';

export interface ControlParts {
  ctx: PlatformContext;
  accounts: SandboxAccounts;
  faults: FaultInjector;
  simulator: Simulator;
  limiter: RateLimiter;
  file: StateFile | null;
  onError(error: unknown): void;
  keys(): unknown;
  /** The background loop's work, run at once after the clock moves. */
  tick(): void;
}

export function controlPlane(parts: ControlParts): ControlDeps {
  const { ctx, accounts, faults, simulator, limiter, file, tick } = parts;
  const { state, clock } = ctx;
  return {
    ctx,
    accounts,
    faults,
    simulator,
    onError: parts.onError,
    keys: parts.keys,
    reset: () => {
      simulator.stop();
      faults.clear();
      limiter.clear();
      state.clearActivity();
      file?.clearBlobs();
      ctx.domain().reset();
      accounts.reset();
      ctx.markDirty();
    },
    advanceClock: (ms: number) => {
      if (!isAdvanceable(clock)) return false;
      clock.advance(ms);
      tick();
      return true;
    },
    platformReadout: () => ({
      files: [...state.files.values()],
      webhooks: [...state.webhooks.values()].map(({ secret: _secret, ...rest }) => rest),
      deliveries: [...state.deliveries.values()],
      events: state.events.size,
      idempotency_entries: state.idempotency.size,
      audit_entries: state.audit.length,
      exports: [...state.exports.values()],
      faults: faults.current(),
      simulation: simulator.current(),
      now: new Date(clock.now()).toISOString(),
    }),
  };
}
