/** The PlatformContext the platform's modules share, built from the parts composeSandbox holds. */
import type { Clock } from '../../shared/clock.js';
import { MonotonicTimestamps } from '../http/paging.js';
import type { AccountWorld, RaisedEvent, SandboxDomain } from '../http/types.js';
import type { PlatformContext } from '../platform/context.js';
import type { StateFile } from '../platform/persistence.js';
import type { PlatformState } from '../platform/state.js';
import type { SandboxOptions } from '../options.js';
import type { StateSaver } from './saved-state.js';

export interface ContextParts {
  state: PlatformState;
  clock: Clock;
  options: Pick<SandboxOptions, 'timeScale' | 'allowHttpWebhooks' | 'rateLimitOverrides'>;
  file: StateFile | null;
  saver: StateSaver;
  origin(): string;
  /** null until the domain is created. */
  domain(): SandboxDomain | null;
  worldOf(accountId: string): AccountWorld | null;
  raise(event: RaisedEvent): void;
  /** The background loop's work, which `kick` runs soon. */
  tick(): void;
}

export function createPlatformContext(parts: ContextParts): PlatformContext {
  const { state, clock, options, file } = parts;
  const ctx: PlatformContext = {
    state,
    clock,
    stamps: new MonotonicTimestamps(() => clock.now()),
    timeScale: options.timeScale ?? 1,
    allowHttpWebhooks: options.allowHttpWebhooks ?? false,
    rateLimitOverrides: options.rateLimitOverrides,
    origin: () => parts.origin(),
    domain: () => {
      const domain = parts.domain();
      if (!domain) throw new Error('sandbox domain not ready');
      return domain;
    },
    worldOf: (accountId) => parts.worldOf(accountId),
    markDirty: () => parts.saver.schedule(),
    putBlob: (id, data) => {
      state.blobs.set(id, data);
      file?.putBlob(id, data);
    },
    deleteBlob: (id) => {
      state.blobs.delete(id);
      file?.deleteBlob(id);
    },
    raise: (event) => parts.raise(event),
    kick: onceSoon(() => parts.tick()),
  };
  if (!(ctx.timeScale > 0)) throw new Error('timeScale must be a positive number');
  return ctx;
}

/** Runs `run` on the next turn of the event loop, once however often it is asked before then. */
function onceSoon(run: () => void): () => void {
  let pending = false;
  return () => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      run();
    });
  };
}
