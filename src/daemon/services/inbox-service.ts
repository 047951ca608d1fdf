/**
 * The webhook inbox the receiver writes to, on its own connection to the state file when it can. On a shared
 * PostgreSQL state the receiver writes through a session of its own that is never fenced, so a standby stores
 * signed webhooks too; the leader's dispatcher reads and marks them through the fenced state store.
 */
import { openConfiguredState, type StateStore } from '../../state/index.js';
import { openDaemonInbox, stateInbox, type ClosableInbox, type InboxStore } from '../../webhooks/index.js';
import type { Environment } from './environment.js';
import type { Service } from './service.js';

export class InboxService implements Service {
  readonly name = 'webhook inbox';
  #inbox: ClosableInbox | undefined;
  /** The unfenced session of a shared state; undefined on a state file. */
  #ownState: StateStore | undefined;

  constructor(private readonly env: Environment) {}

  get inbox(): ClosableInbox {
    if (this.#inbox === undefined) throw new Error('the webhook inbox is not open');
    return this.#inbox;
  }

  /** The inbox the dispatcher reads and marks: on a shared state, through the fenced store (leader-only). */
  get dispatchInbox(): InboxStore {
    return this.#ownState === undefined ? this.inbox : stateInbox(this.env.state.inbox);
  }

  /** Where every instance may write whether it leads or not (the inbox, readiness's write check). */
  get unfencedState(): StateStore {
    return this.#ownState ?? this.env.state;
  }

  async start(): Promise<void> {
    const { env } = this;
    const location = env.loaded.config.state;
    if (env.state.backend === 'postgres' && location.url !== undefined) {
      this.#ownState = openConfiguredState(location, env.clock);
      this.#inbox = openDaemonInbox(this.#ownState, env.clock);
      return;
    }
    this.#inbox = openDaemonInbox(env.state, env.clock);
  }

  async stop(): Promise<void> {
    const inbox = this.#inbox;
    const own = this.#ownState;
    this.#inbox = undefined;
    this.#ownState = undefined;
    await inbox?.close();
    own?.close();
  }
}
