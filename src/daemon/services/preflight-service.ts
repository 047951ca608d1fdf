/**
 * The connectors' pre-flight, per job: a job whose statements fail it is held back with the reason (its runs fail
 * at once, before touching the API or the ERP) while every other job runs. A held job's next run checks again, so
 * a fix on the database side (a column added) releases it without a restart.
 */
import type { Logger } from 'pino';
import type { Connector, PreflightProblem } from '../../connector-contract/index.js';
import type { Job, JobContext, RunResult } from '../../engine/index.js';
import { capabilitiesUsed } from '../../plugin/index.js';
import type { BuiltJob, Environment } from './environment.js';
import type { Service } from './service.js';

export interface PreflightInput {
  /** The config file, named in every reason. */
  readonly file: string;
  readonly connectors: ReadonlyMap<string, Connector>;
  readonly jobs: ReadonlyMap<string, BuiltJob>;
}

/** One line a user can act on: file, full config key, what is wrong. */
export function describePreflightProblem(file: string, connector: string, problem: PreflightProblem): string {
  return `${file}: connectors.${connector}.${problem.key}: ${problem.detail}`;
}

/**
 * Runs the pre-flight of every connector the given jobs use (once per connector) and returns, per job, the reason
 * it must not run; jobs that passed are absent. A connector whose pre-flight cannot run (database unreachable) holds
 * nothing back: its connection check reports that.
 */
export async function preflightJobs(
  input: PreflightInput,
  logger: Logger,
  only?: ReadonlySet<string>,
): Promise<Map<string, string>> {
  const results = new Map<string, Promise<PreflightProblem[] | null>>();
  const problemsOf = (name: string, preflight: () => Promise<PreflightProblem[]>) => {
    let result = results.get(name);
    if (result === undefined) {
      result = preflight().catch((error: unknown) => {
        logger.warn({ connector: name, err: error }, 'connector pre-flight could not run');
        return null;
      });
      results.set(name, result);
    }
    return result;
  };
  const reasons = new Map<string, string>();
  for (const [job, built] of input.jobs) {
    if (only !== undefined && !only.has(job)) continue;
    const connectorName = built.config.connector;
    const connector = connectorName === undefined ? undefined : input.connectors.get(connectorName);
    if (connectorName === undefined || connector?.preflight === undefined) continue;
    const problems = await problemsOf(connectorName, () => connector.preflight?.() ?? Promise.resolve([]));
    const failing = (problems ?? []).filter(
      (problem) => problem.status === 'fail' && capabilitiesUsed(built.flow).includes(problem.capability),
    );
    if (failing.length === 0) continue;
    reasons.set(
      job,
      `pre-flight failed: ${failing.map((problem) => describePreflightProblem(input.file, connectorName, problem)).join('; ')}`,
    );
  }
  return reasons;
}

/** Holds back the jobs whose pre-flight failed at start, and tells `status` why. */
export class PreflightGate {
  private constructor(
    private readonly input: PreflightInput,
    private readonly logger: Logger,
    private readonly held: Map<string, string>,
  ) {}

  static async open(input: PreflightInput, logger: Logger): Promise<PreflightGate> {
    const held = await preflightJobs(input, logger);
    for (const [job, reason] of held)
      logger.error({ job, reason }, 'job held back: its statements fail the pre-flight');
    return new PreflightGate(input, logger, held);
  }

  /** Why the job is held back, or undefined when it runs. */
  reason(job: string): string | undefined {
    return this.held.get(job);
  }

  /** The job as the daemon runs it: while held, a run checks again and fails with the reason instead. */
  guard(name: string, job: Job): Job {
    if (!this.held.has(name)) return job;
    return {
      name: job.name,
      run: async (ctx: JobContext): Promise<RunResult> => {
        if (this.held.has(name)) {
          const reason = (await preflightJobs(this.input, this.logger, new Set([name]))).get(name);
          if (reason !== undefined) {
            this.held.set(name, reason);
            return { outcome: 'failed', counts: {}, error: reason };
          }
          this.held.delete(name);
          this.logger.info({ job: name }, 'job released: its statements pass the pre-flight');
        }
        return job.run(ctx);
      },
    };
  }
}

/** The gate as the daemon's service, opened once its connectors are. */
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
