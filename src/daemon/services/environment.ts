/** What a loaded config builds for the jobs to run with (environment-service.ts opens it, environment-parts.ts its parts). */
import type { Logger } from 'pino';
import type { ApiEndpoint } from '../../api-access/index.js';
import type { ApiCallEvent, ApiClient, DriftEvent } from '../../client/index.js';
import type { LoadedConfig } from '../../config/index.js';
import type { Connector } from '../../connector-contract/index.js';
import type { Job } from '../../engine/index.js';
import type { ApiSide, FlowDefinition } from '../../plugin/index.js';
import type { Clock } from '../../shared/clock.js';
import type { StateStore } from '../../state/index.js';
import type { MappingsHolder } from '../jobs/mappings.js';

export interface BuiltJob {
  readonly job: Job;
  readonly flow: FlowDefinition;
  readonly config: LoadedConfig['config']['jobs'][string];
}

export interface EnvironmentHooks {
  onApiCall?: (side: ApiSide, event: ApiCallEvent) => void;
  onDrift?: (event: DriftEvent) => void;
}

export interface Environment {
  readonly loaded: LoadedConfig;
  readonly logger: Logger;
  readonly clock: Clock;
  /**
   * What the background loops (command queue, connector checks, API probe, notifications, housekeeping) wait on: the
   * daemon's clock, or an office's clock whose sleeps end together on whole seconds (shared/coalescing-clock.ts).
   */
  readonly loopClock: Clock;
  readonly state: StateStore;
  readonly endpoint: ApiEndpoint;
  readonly apis: ReadonlyMap<ApiSide, ApiClient>;
  readonly connectors: ReadonlyMap<string, Connector>;
  readonly jobs: ReadonlyMap<string, BuiltJob>;
  /** The `mappings:` the jobs run with; a config reload replaces them without a stop (from each job's next run). */
  readonly mappings: MappingsHolder;
  /** Every secret value known to the daemon, for scrubbing text shown to people. */
  secrets(): readonly string[];
  /** Closes every part, last opened first; a part that fails to close is logged and the others still close. */
  close(): Promise<void>;
}
