/**
 * Job events derived from the run history. A failed run is part of the job's failure streak, counted back to its
 * last run that did not fail, whoever ran them (the daemon, `sync` by hand before it started): once the streak
 * reaches a rule's `after_failures` (or more) the job joins the open episode (see episodes.ts), told once. A run that
 * does not fail ends the streak and states its real length. Runs are read past a watermark only to save rereading;
 * the episode's key keeps every message queued once.
 */
import type { JobConfig } from '../config/index.js';
import { NotificationSources, type FinishedRun } from '../state/index.js';
import { closeCondition, openCondition, spanText } from './episodes.js';
import { heldBackLines } from './held-back.js';
import { simpleMessage, zonedTime, type MessageOrigin } from './message.js';
import { channelsOf, enqueue, rulesFor, type Routing } from './routing.js';
import { describeRunError } from './run-error.js';

const NAMESPACE = 'notifications';
const RUN_WATERMARK = 'runs_after';
const WATCHED_PREFIX = 'watched_since:';

export function deriveRunEvents(routing: Routing, origin: MessageOrigin, jobs: Iterable<string>): number {
  const { state } = routing;
  const sources = new NotificationSources(state.db);
  const stored = state.kv.get(NAMESPACE, RUN_WATERMARK);
  if (typeof stored !== 'number') {
    // First start with notifications: finished runs are not news, but a job failing now is (a run by hand counts).
    state.kv.set(NAMESPACE, RUN_WATERMARK, sources.maxRunId());
    let queued = 0;
    for (const job of jobs) {
      const last = sources.lastRun(job);
      if (last?.outcome === 'failed') queued += failedRun(routing, sources, last, origin);
    }
    return queued;
  }
  let queued = 0;
  const { finished, settledUpTo } = sources.runsAfter(stored);
  // Runs past one still going are read again on the next passes; the episode keeps them told once.
  for (const run of finished) queued += runEvents(routing, sources, run, origin);
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
  if (run.outcome === 'failed') return failedRun(routing, sources, run, origin);
  return recoveredRun(routing, sources, run, origin);
}

function failedRun(
  routing: Routing,
  sources: NotificationSources,
  run: FinishedRun,
  origin: MessageOrigin,
): number {
  const streak = sources.failureStreak(run.job, run.id);
  const first = streak.first ?? run;
  const rules = rulesFor(
    routing.config,
    'job_failed',
    run.job,
    (rule) => streak.count >= rule.after_failures,
  );
  if (rules.length === 0) return 0;
  const error = describeRunError(run.error, origin.apiKeySetting);
  const zone = routing.timezone;
  openCondition(
    routing,
    {
      name: `job:${run.job}`,
      event: 'job_failed',
      value: String(first.id),
      since: first.startedAt,
      title:
        streak.count > 1 ? `Job ${run.job} failed ${streak.count} runs in a row` : `Job ${run.job} failed`,
      paragraphs: [
        streak.count > 1
          ? `Its runs fail since ${zonedTime(first.startedAt, zone)}; the last ended ${zonedTime(run.endedAt, zone)}.`
          : `The run of job ${run.job} that ended ${zonedTime(run.endedAt, zone)} failed.`,
        `What happened: ${error.what}`,
        `To fix: ${error.fix}.`,
        ...heldBackLines(sources, run.job, origin.config),
        ...(error.detail === null ? [] : [`Technical detail: ${error.detail}`]),
      ],
    },
    channelsOf(rules),
    run.endedAt,
  );
  return 0;
}

function recoveredRun(
  routing: Routing,
  sources: NotificationSources,
  run: FinishedRun,
  origin: MessageOrigin,
): number {
  const streak = sources.failureStreak(run.job, run.id - 1);
  if (streak.first === null) return 0;
  const rules = rulesFor(
    routing.config,
    'job_recovered',
    run.job,
    (rule) => streak.count >= rule.after_failures,
  );
  const how = run.outcome === 'ok' ? 'successfully' : 'with some records held back';
  const runs = streak.count === 1 ? '1 failed run' : `${streak.count} failed runs in a row`;
  return closeCondition(routing, origin, `job:${run.job}`, {
    at: run.endedAt,
    sentence:
      `Job ${run.job} ran ${how} again at ${zonedTime(run.endedAt, routing.timezone)} after ${runs}, ` +
      `over ${spanText(run.endedAt - streak.first.startedAt)} (the first failed run started ${zonedTime(streak.first.startedAt, routing.timezone)}).`,
    channels: channelsOf(rules),
  });
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
