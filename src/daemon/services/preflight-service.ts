/** The pre-flight gate: jobs whose statements fail the connectors' pre-flight are held back with the reason. */
import type { Environment } from '../environment.js';
import { PreflightGate } from '../preflight.js';
import type { Service } from './service.js';

export class PreflightService implements Service {
  readonly name = 'pre-flight gate';
  #gate: PreflightGate | undefined;

  constructor(private readonly env: Environment) {}

  get gate(): PreflightGate {
    if (this.#gate === undefined) throw new Error('the pre-flight gate is not open');
    return this.#gate;
  }

  async start(): Promise<void> {
    const { env } = this;
    this.#gate = await PreflightGate.open(
      { file: env.loaded.file, connectors: env.connectors, jobs: env.jobs },
      env.logger,
    );
  }

  async stop(): Promise<void> {
    // Nothing to release: the gate only remembers which jobs are held back.
  }
}
