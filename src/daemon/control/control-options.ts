/** What the control API is built from: the config, the command queue, the operations server's providers and auth. */
import type { Logger } from 'pino';
import type { LoadedConfig } from '../../config/index.js';
import type { ControlAuthOptions } from '../../ops/control-auth.js';
import type { OpsProviders } from '../../ops/index.js';
import type { StateStore } from '../../state/index.js';

export interface ControlApiOptions {
  readonly loaded: LoadedConfig;
  /** Where commands are queued: a session every instance may write, leader or standby. */
  readonly queue: StateStore;
  readonly providers: OpsProviders;
  readonly logger: Logger;
  readonly auth: ControlAuthOptions;
  /** Wakes this instance's command drain (a no-op on a standby). */
  readonly kick: () => void;
  /** The environment's secrets, replaced in every answer (run errors, dead-letter reasons, command errors). */
  readonly knownSecrets: () => readonly string[];
}
