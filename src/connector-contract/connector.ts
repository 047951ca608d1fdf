import type { CapabilityMap, CapabilityName } from './capabilities.js';

export interface CheckResult {
  readonly name: string;
  readonly status: 'ok' | 'warn' | 'fail';
  readonly detail: string;
  /** What to do about a warn or fail, in the user's terms. */
  readonly fix?: string;
}

/** A problem the pre-flight found in one setting of a connector (a statement, typically), before any run. */
export interface PreflightProblem {
  /** `fail`: a run would fail on it; `warn`: probably a slip (a result column nothing reads). */
  readonly status: 'fail' | 'warn';
  /** The capability the setting serves: only jobs that use it are affected. */
  readonly capability: CapabilityName;
  /** The key inside the connector's block, e.g. `statements.orders.insert_line`. */
  readonly key: string;
  /** What is wrong, naming the bad name and the likely intended one; never a value or a credential. */
  readonly detail: string;
  readonly fix?: string;
}

/** A live connector instance: the capabilities it offers plus connectivity checks for `doctor` and `/readyz`. */
export interface Connector {
  readonly type: string;
  readonly capabilities: Partial<CapabilityMap>;
  check(): Promise<CheckResult[]>;
  /**
   * Pre-flight of what the config asks of the target (statements prepared against the real database), without
   * changing data. Used by `doctor` and at daemon start. Connectors with nothing to prepare leave it out.
   */
  preflight?(): Promise<PreflightProblem[]>;
  close(): Promise<void>;
}
