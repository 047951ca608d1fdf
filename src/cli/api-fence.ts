/**
 * The leadership fence for the API writes of a CLI command run without a daemon (`catalog remove`, `webhooks ...`).
 * On a PostgreSQL state the command holds the leadership lease for the length of its writes (refused while a
 * daemon leads, like `sync <job>`), and each API write passes the daemon's own headroom check for that term: no
 * write leaves once the lease is lost or has too little time left. On a state file nothing is added.
 */
import type { BeforeWrite } from '../client/index.js';
import type { CoreConfig } from '../config/index.js';
import { leadershipSettings } from '../daemon/start/leadership-settings.js';
import { WriteGate } from '../daemon/services/write-gate.js';
import { LeadershipLostError, type StateStore } from '../state/index.js';
import { withStateChange } from './state-access.js';

export interface CliWriteFence {
  /** For the command's API client. */
  readonly beforeWrite: BeforeWrite;
  /** Runs `work` under the lease on a PostgreSQL state, its API writes fenced to that term; else as it is. */
  during<T>(work: (state: StateStore | undefined) => Promise<T>): Promise<T>;
}

export function cliWriteFence(config: Pick<CoreConfig, 'state' | 'ha'>, purpose: string): CliWriteFence {
  if (config.state.url === undefined)
    return { beforeWrite: () => undefined, during: (work) => work(undefined) };
  let admit: (() => ReturnType<BeforeWrite>) | undefined;
  return {
    beforeWrite: () => {
      if (admit === undefined) {
        throw new LeadershipLostError(
          'not_leader',
          `${purpose}: an API write outside the command's leadership lease is refused`,
        );
      }
      return admit();
    },
    during: (work) =>
      withStateChange(config, purpose, async (state) => {
        const gate = new WriteGate(state, leadershipSettings(config));
        admit = () => gate.admit(`an API write of ${purpose}`);
        try {
          return await work(state);
        } finally {
          admit = undefined;
        }
      }),
  };
}
