/**
 * Job events derived from the run history: a failed run (once a job has failed N runs in a row), a recovery, and a
 * job past its freshness. Each is queued under a key naming the run, so deriving again after a crash or on another
 * leader queues nothing twice; the watermark only saves rereading.
 */
import type { JobConfig } from '../config/index.js';
import { NotificationSources, type FinishedRun } from '../state/index.js';
import { simpleMessage, zonedTime, type MessageOrigin } from './message.js';
import { channelsOf, enqueue, rulesFor, type Routing } from './routing.js';

const NAMESPACE = 'notifications';
const RUN_WATERMARK = 'runs_after';
const WATCHED_PREFIX = 'watched_since:';

export function deriveRunEvents(routing: Routing, origin: MessageOrigin): number {
  const { state } = routing;
  const sources = new NotificationSources(state.db);
  const stored = state.kv.get(NAMESPACE, RUN_WATERMARK);
  if (typeof stored !== 'number') {
    // First start with notifications: history before it is not news.
    state.kv.set(NAMESPACE, RUN_WATERMARK, sources.maxRunId());
    return 0;
  }
  let queued = 0;
  const { finished, settledUpTo } = sources.runsAfter(stored);
  // Runs past one still going are read again on the next passes; their keys keep them queued once.
  for (const run of finished) queued += state.transaction(() => runEvents(routing, sources, run, origin));
  if (settledUpTo !== stored) state.kv.set(NAMESPACE, RUN_WATERMARK, settledUpTo);
  return queued;
}

function runEvents(
  routing: Routing,
  sources: NotificationSources,
  run: FinishedRun,
  origin: MessageOrigin,
): number {
  if (run.outcome === 'skipped') return 0;
  const longest = Math.max(1, ...routing.config.rules.map((rule) => rule.after_failures)) + 1;
  const history = sources.previousRuns(run.job, run.id, longest);
  if (run.outcome === 'failed') {
    const streak = history.findIndex((r) => r.outcome !== 'failed');
    const failures = streak === -1 ? history.length : streak;
    const rules = rulesFor(routing.config, 'job_failed', run.job, (rule) => rule.after_failures === failures);
    const message = simpleMessage(
      'job_failed',
      'error',
      failures > 1 ? `Job ${run.job} failed ${failures} runs in a row` : `Job ${run.job} failed`,
      [
        `The run of job ${run.job} that ended ${zonedTime(run.endedAt, routing.timezone)} failed.`,
        `Error: ${run.error ?? 'not recorded'}`,
      ],
      origin,
    );
    return enqueue(routing, channelsOf(rules), `job_failed:${run.job}:${run.id}`, message);
  }
  const previous = history.slice(1);
  const streak = previous.findIndex((r) => r.outcome !== 'failed');
  const failures = streak === -1 ? previous.length : streak;
  if (failures === 0) return 0;
  const rules = rulesFor(routing.config, 'job_recovered', run.job, (rule) => failures >= rule.after_failures);
  const message = simpleMessage(
    'job_recovered',
    'ok',
    `Job ${run.job} recovered`,
    [
      `Job ${run.job} ran ${run.outcome === 'ok' ? 'successfully' : 'with some records held back'} again after ${failures} failed run(s).`,
    ],
    origin,
  );
  return enqueue(routing, channelsOf(rules), `job_recovered:${run.job}:${run.id}`, message);
}

/**
 * A job whose last success is older than its freshness and that is not paused: once per stale spell (keyed by that
 * last success). A job that never succeeded is stale from when it was first watched: that time is kept in the state
 * (per job, until it succeeds), so a restart or a failover does not start a new spell and tell it again. A job
 * resumed after its last success (or after it was first watched) is measured from the resume instead: it gets its
 * whole freshness to run again, and a spell after a resume is a new one (keyed by the resume).
 */
export function deriveStaleJobs(
  routing: Routing,
  origin: MessageOrigin,
  jobs: Iterable<readonly [string, JobConfig]>,
  now: number,
  watchingSince: number,
): number {
  let queued = 0;
  for (const [name, job] of jobs) {
    // A paused job is not expected to run: it is not stale while paused (the status page shows the pause).
    if (job.freshness === undefined || routing.state.pausedJobs.get(name) !== null) continue;
    const success = routing.state.runs.last(name, ['ok', 'partial']);
    const firstWatched = watchedSince(routing, name, success === null, watchingSince);
    const rules = rulesFor(routing.config, 'job_stale', name);
    if (rules.length === 0) continue;
    const succeeded = success?.endedAt ?? success?.startedAt ?? firstWatched;
    const resumedAt = routing.state.pausedJobs.resumedAt(name);
    const resumed = resumedAt !== null && resumedAt > succeeded ? resumedAt : null;
    const since = resumed ?? succeeded;
    if (now - since <= job.freshness) continue;
    const message = simpleMessage(
      'job_stale',
      'warning',
      `Job ${name} is stale`,
      [
        resumed !== null
          ? `Job ${name} has not run successfully since it was resumed ${zonedTime(resumed, routing.timezone)}, longer ago than its freshness allows.`
          : success === null
            ? `Job ${name} has not run successfully since supply-sync started watching it.`
            : `Job ${name} last ran successfully ${zonedTime(since, routing.timezone)}, longer ago than its freshness allows.`,
      ],
      origin,
    );
    const spell = `${success?.id ?? `never:${firstWatched}`}${resumed === null ? '' : `:resumed:${resumed}`}`;
    queued += routing.state.transaction(() =>
      enqueue(routing, channelsOf(rules), `job_stale:${name}:${spell}`, message),
    );
  }
  return queued;
}

/**
 * When a job that never succeeded was first watched: stored on the first pass that finds it without a success, and
 * cleared once it has one (so a later spell without any success, say after the history was pruned, starts afresh).
 */
function watchedSince(routing: Routing, job: string, neverSucceeded: boolean, watchingSince: number): number {
  const key = `${WATCHED_PREFIX}${job}`;
  const stored = routing.state.kv.get(NAMESPACE, key);
  if (!neverSucceeded) {
    if (stored !== undefined) routing.state.kv.delete(NAMESPACE, key);
    return watchingSince;
  }
  if (typeof stored === 'number') return stored;
  routing.state.kv.set(NAMESPACE, key, watchingSince);
  return watchingSince;
}
