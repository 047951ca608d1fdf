/** Public entry of the sandbox: startSandbox for tests and tools, runSandboxCli for `supply-sync sandbox`. */
import { composeSandbox } from './sandbox.js';
import type { RunningSandbox, SandboxOptions } from './options.js';

export type { RunningSandbox, SandboxKeyInfo, SandboxKeys, SandboxOptions } from './options.js';
export { createManualClock } from './platform/manual-clock.js';
export type { AdvanceableClock } from './platform/manual-clock.js';
export { runSandboxCli } from './cli.js';
export { sandboxControl } from './harness/client.js';
export { createEmptyDomain } from './platform/empty-domain.js';
export type { SandboxControl } from './harness/client.js';
export type { FaultSettings } from './harness/faults.js';
export type { SandboxCliOptions } from './cli.js';

export function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  return composeSandbox(options);
}
