/**
 * The headroom check before a write that leaves the state database: an API request (an outbox send included), an
 * ERP transaction's COMMIT, a books write. A write starts only while the term it belongs to (see src/ha job-term.ts)
 * holds the lease with time for the whole write left: its timeout plus a margin. An API request's timeout is cut to
 * what the lease allows, so a leader frozen mid-request cannot have it answered after its lease ran out. When the
 * lease has less left (a renewal is late), the gate waits for a renewal; without one within a renew interval and a
 * margin, the write is refused as the fence refuses it, since the term is about to end.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { performance } from 'node:perf_hooks';
import type { WriteAllowance } from '../../client/index.js';
import { errorMessage } from '../../engine/index.js';
import { writeHeadroomMs, type HaSettings } from '../../ha/index.js';
import { LeadershipLostError, type LeaseGrant, type StateStore } from '../../state/index.js';

/**
 * What admit allows: the time the write may take, and the same as a moment on this process's monotonic clock
 * (performance.now()), taken before the lease was read, so a connector can still tell after a freeze that its
 * time is up (see CommitAllowance).
 */
export interface GateAllowance extends WriteAllowance {
  readonly deadline: number;
}

/** How often a write waiting for a renewal looks at the lease again, at most. */
const RECHECK_MS = 100;

export class WriteGate {
  constructor(
    private readonly state: StateStore,
    /** The election's settings; null on a state file, where no lease bounds a write. */
    private readonly settings: HaSettings | null,
  ) {}

  /**
   * Resolves when `what` may start, with the time it may take (undefined: nothing bounds it); rejects with a
   * LeadershipLostError when the write's term no longer leads or its lease is not renewed in time.
   */
  async admit(what: string): Promise<GateAllowance | undefined> {
    const { settings } = this;
    if (settings === null) return undefined;
    const needed = writeHeadroomMs(settings);
    const giveUpAt = performance.now() + settings.renewIntervalMs + settings.writeMarginMs;
    for (;;) {
      const checkedAt = performance.now();
      const grant = checkTerm(this.state, what);
      if (grant === undefined) return undefined;
      if (grant.remainingMs >= needed) {
        const timeoutMs = Math.min(settings.writeTimeoutMs, grant.remainingMs - settings.writeMarginMs);
        return { timeoutMs, deadline: checkedAt + timeoutMs };
      }
      if (performance.now() >= giveUpAt) {
        throw new LeadershipLostError(
          'lease_short',
          `${what} not started: the lease has ${Math.round(grant.remainingMs)} ms left and a write needs ${needed} ms (ha.write_timeout plus a fifth of ha.lease); it was not renewed in time`,
        );
      }
      await sleep(Math.min(RECHECK_MS, settings.renewIntervalMs / 4));
    }
  }
}

/**
 * The fence on its own. A lease that cannot be read (PostgreSQL unreachable) refuses the write as a lost term does:
 * the instance cannot know it still leads, and the run must stop rather than file the record as a dead letter.
 */
function checkTerm(state: StateStore, what: string): LeaseGrant | undefined {
  try {
    return state.checkFence();
  } catch (error) {
    if (error instanceof LeadershipLostError) throw error;
    throw new LeadershipLostError(
      'lease_unreadable',
      `the lease could not be checked before ${what}, so it is not started: ${errorMessage(error)}`,
    );
  }
}
