/**
 * A one-off run (`supply-sync sync <job>`) on a PostgreSQL state takes part in the leader election: it takes the
 * lease once for the length of the run, or is refused while another instance leads, so it never writes beside a
 * leader. While it holds the lease the daemons stand by; releasing it at the end lets a standby take over at once.
 */
import { Elector, LeadershipLostError, termFence, type HaSettings, type Term } from '../../ha/index.js';
import type { StateStore } from '../../state/index.js';
import { DaemonStartError } from '../start/start-errors.js';
import { packageVersion } from '../package/version.js';

export interface OnceLease {
  /** Fences `state`'s writes to the lease's term: refused once the term is lost or released. */
  fence(state: StateStore): void;
  /** Ends the term and releases the lease; a fenced store refuses writes from then on. */
  release(): Promise<void>;
}

export interface OnceLeaseOptions {
  /** state.url, password resolved. */
  readonly url: string;
  readonly settings: HaSettings;
  /** What the lease is taken for, in the refusal and the lease info (`sync orders`). */
  readonly purpose: string;
}

/**
 * Takes the lease once; rejects when another instance leads. Taken before anything else the command opens (its
 * API endpoint, its connectors), so that beside a leader nothing is touched: a leader frozen inside a write to a
 * shared file (the embedded sandbox's) would otherwise fail the command with "database is locked" instead of
 * leaving the run to it.
 */
export async function takeOnceLease(options: OnceLeaseOptions): Promise<OnceLease> {
  let lost = false;
  const elector = new Elector({
    url: options.url,
    settings: options.settings,
    info: { version: packageVersion(), command: options.purpose },
    onLost: () => {
      lost = true;
    },
  });
  await elector.start();
  const term: Term | null = elector.term();
  if (term === null) {
    const { leader, lastError } = elector.status();
    await elector.stop();
    throw new DaemonStartError(
      refusal(options.purpose, leader?.instance ?? null, lastError),
      'leader_elsewhere',
      'state.url',
    );
  }
  const fence = termFence(term);
  return {
    fence: (state) =>
      state.setFence({
        check: (port) => {
          // A lost term stays lost for this run, even if the elector wins a later one.
          if (lost)
            throw new LeadershipLostError(
              'not_leader',
              `the lease of term ${term.epoch} was lost during ${options.purpose}`,
              null,
            );
          return fence.check(port);
        },
      }),
    release: async () => {
      lost = true;
      await elector.stop();
    },
  };
}

function refusal(purpose: string, leader: string | null, lastError: string | null): string {
  if (leader !== null) {
    return `${purpose}: refused: instance "${leader}" leads on this PostgreSQL state and runs the jobs there; stop the daemons first to run it here`;
  }
  return `${purpose}: refused: the leadership lease could not be taken${lastError === null ? '' : ` (${lastError})`}`;
}
