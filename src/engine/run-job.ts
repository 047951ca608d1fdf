import type { Job, JobContext, RunResult } from './job.js';
import { errorMessage, judgeRun } from './outcome.js';

/**
 * Runs a job once and records it in run history; a thrown error becomes a "failed" run, never an unhandled one.
 * One run per job at a time is the caller's to keep: the scheduler's single-flight does it for every trigger.
 */
export async function runJob(job: Job, ctx: JobContext): Promise<RunResult> {
  const log = ctx.logger.child({ job: job.name, trigger: ctx.trigger, dryRun: ctx.dryRun });
  const runId = ctx.state.runs.start(job.name, ctx.trigger, ctx.requestedBy);
  const started = ctx.clock.now();
  log.info('run started');
  let result: RunResult;
  try {
    result = judgeRun(await job.run({ ...ctx, logger: log }), ctx.errorThreshold);
  } catch (error) {
    result = { outcome: 'failed', counts: {}, error: errorMessage(error) };
  }
  ctx.state.runs.finish(runId, result.outcome, result.counts, result.error ?? null);
  const fields = { outcome: result.outcome, counts: result.counts, durationMs: ctx.clock.now() - started };
  if (result.outcome === 'failed') log.error({ ...fields, error: result.error }, 'run failed');
  else if (result.outcome === 'partial') log.warn({ ...fields, error: result.error }, 'run ended partial');
  else log.info(fields, 'run finished');
  return result;
}
