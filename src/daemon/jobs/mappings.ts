/**
 * The config's `mappings:` as the daemon runs them: replaced by a config reload without a stop. Each job reads them
 * through its own view, pinned to the mappings current when its run starts: a reload during a run applies from the
 * job's next run on, never half way through one.
 */
import { createHash } from 'node:crypto';
import type { Job } from '../../engine/index.js';
import type { Mappings } from '../../plugin/index.js';

/** A job that cannot be built with a set of mappings (a table its options name is missing), and why. */
export interface MappingsProblem {
  readonly job: string;
  readonly flow: string;
  readonly message: string;
}

export class MappingsHolder {
  #current: Mappings;
  #check: (next: Mappings) => readonly MappingsProblem[] = () => [];

  constructor(initial: Mappings) {
    this.#current = initial;
  }

  current(): Mappings {
    return this.#current;
  }

  /** Set when the jobs are built: how to tell whether each of them could be built with other mappings. */
  checkWith(check: (next: Mappings) => readonly MappingsProblem[]): void {
    this.#check = check;
  }

  /** The jobs that could not be built with `next`, as at a start with them; empty when every job could. */
  problemsWith(next: Mappings): readonly MappingsProblem[] {
    return this.#check(next);
  }

  replace(next: Mappings): void {
    this.#current = next;
  }

  /**
   * A job's view: reads see the mappings pinned by `pin()` (at the start of each run). It is the value flows get as
   * `deps.mappings`, so a flow that reads its tables during a run (not when it is built) follows every reload.
   */
  jobView(): { readonly view: Mappings; pin(): void } {
    let pinned = this.#current;
    const view = new Proxy({} as Mappings, {
      get: (_target, key) => (typeof key === 'string' ? pinned[key] : undefined),
      has: (_target, key) => typeof key === 'string' && Object.hasOwn(pinned, key),
      ownKeys: () => Reflect.ownKeys(pinned),
      getOwnPropertyDescriptor: (_target, key) => {
        if (typeof key !== 'string' || !Object.hasOwn(pinned, key)) return undefined;
        return { value: pinned[key], enumerable: true, configurable: true, writable: false };
      },
      set: () => false,
      deleteProperty: () => false,
      defineProperty: () => false,
    });
    return {
      view,
      pin: () => {
        pinned = this.#current;
      },
    };
  }
}

/** The job with its mappings view pinned at the start of each run. */
export function pinnedPerRun(job: Job, pin: () => void): Job {
  return {
    name: job.name,
    run: (ctx) => {
      pin();
      return job.run(ctx);
    },
  };
}

/** A short hash of the mappings' content, the same whatever the order of tables and entries in the file. */
export function mappingsFingerprint(mappings: Mappings): string {
  const tables = Object.keys(mappings)
    .sort()
    .map((table) => {
      const entries = mappings[table] ?? {};
      return [
        table,
        Object.keys(entries)
          .sort()
          .map((key) => [key, entries[key]]),
      ];
    });
  return createHash('sha256').update(JSON.stringify(tables)).digest('hex').slice(0, 16);
}

/** The tables whose entries differ between two mappings (added, removed or changed), sorted. */
export function changedTables(before: Mappings, after: Mappings): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names]
    .filter((name) => {
      const a = before[name];
      const b = after[name];
      if (a === undefined || b === undefined) return true;
      return mappingsFingerprint({ t: a }) !== mappingsFingerprint({ t: b });
    })
    .sort();
}
