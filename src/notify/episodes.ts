/**
 * Episodes: one problem as a person lives it. The first condition that goes wrong (a job failing its
 * `after_failures`-th run in a row, a refused API key, a daemon not ready) starts an episode; whatever else goes
 * wrong while it lasts joins it. Each channel is told once per episode (the queue's key is the episode's), with
 * every condition open then, and once more when the last condition is over, with how long it lasted. The episode is
 * kept in the state with the queued message in one transaction: a restart, a kill -9 or the next leader on a shared
 * state carries it on and tells nothing twice.
 */
import type { NotificationEvent } from '../config/index.js';
import { simpleMessage, zonedTime, type MessageOrigin, type NotificationMessage } from './message.js';
import { enqueue, statusPageLines, type Routing } from './routing.js';

const NAMESPACE = 'notifications';
const CURRENT = 'episode';
const SEQUENCE = 'episode_seq';

export interface EpisodeCondition {
  /** job:<name>, readiness or api_key:<side>. */
  readonly name: string;
  /** The event that names it going wrong: it picks the rules, hence the channels. */
  readonly event: NotificationEvent;
  /** What is wrong (a job: its first failed run of the streak); the same value again is the same condition. */
  readonly value: string;
  readonly since: number;
  /** One line, e.g. "Job journal failed 2 runs in a row". */
  readonly title: string;
  /** What happened, the fix, what waits. */
  readonly paragraphs: readonly string[];
  readonly closedAt?: number;
  /** How it ended, e.g. "Job journal ran successfully again … after 2 failed runs". */
  readonly closing?: string;
  readonly recoveryChannels?: readonly string[];
}

export interface Episode {
  readonly id: number;
  readonly startedAt: number;
  readonly conditions: Readonly<Record<string, EpisodeCondition>>;
  /** Channels to tell at the end of this pass, so what one pass finds goes out as one message. */
  readonly pending?: readonly string[];
}

export interface Closing {
  readonly at: number;
  readonly sentence: string;
  readonly channels: readonly string[];
}

export function currentEpisode(routing: Routing): Episode | null {
  const stored = routing.state.kv.get(NAMESPACE, CURRENT);
  return stored === undefined ? null : (stored as Episode);
}

/** The value a condition is open with in the current episode, if it is open. */
export function openValue(routing: Routing, name: string): string | null {
  const condition = currentEpisode(routing)?.conditions[name];
  return condition === undefined || condition.closedAt !== undefined ? null : condition.value;
}

function started(routing: Routing, now: number): Episode {
  const previous = routing.state.kv.get(NAMESPACE, SEQUENCE);
  const id = (typeof previous === 'number' ? previous : 0) + 1;
  routing.state.kv.set(NAMESPACE, SEQUENCE, id);
  return { id, startedAt: now, conditions: {} };
}

/**
 * Opens (or updates) a condition in the episode, starting one if none is open; the channels its rules name are told
 * at the end of the pass (see tellEpisode), those told already not again.
 */
export function openCondition(
  routing: Routing,
  condition: EpisodeCondition,
  channels: readonly string[],
  now: number,
): void {
  routing.state.transaction(() => {
    const episode = currentEpisode(routing) ?? started(routing, Math.min(now, condition.since));
    const pending = [...new Set([...(episode.pending ?? []), ...channels])];
    const next: Episode = {
      ...episode,
      conditions: { ...episode.conditions, [condition.name]: condition },
      pending,
    };
    routing.state.kv.set(NAMESPACE, CURRENT, next);
  });
}

/** Queues the open episode's message for the channels not told yet; a crash before it leaves them for the next pass. */
export function tellEpisode(routing: Routing, origin: MessageOrigin): number {
  const episode = currentEpisode(routing);
  if (episode === null || (episode.pending ?? []).length === 0) return 0;
  return routing.state.transaction(() => {
    routing.state.kv.set(NAMESPACE, CURRENT, { ...episode, pending: [] });
    return told(routing, origin, episode);
  });
}

function told(routing: Routing, origin: MessageOrigin, episode: Episode): number {
  const message = problemMessage(episode, routing, origin);
  return enqueue(routing, episode.pending ?? [], `episode:${episode.id}`, message);
}

/** Closes a condition; when it was the last one open, the episode ends and its recovery is queued. */
export function closeCondition(
  routing: Routing,
  origin: MessageOrigin,
  name: string,
  closing: Closing,
): number {
  const episode = currentEpisode(routing);
  const stored = episode?.conditions[name];
  if (episode === null || stored === undefined || stored.closedAt !== undefined) return 0;
  return routing.state.transaction(() => {
    const closed: EpisodeCondition = {
      ...stored,
      closedAt: closing.at,
      closing: closing.sentence,
      recoveryChannels: closing.channels,
    };
    const next: Episode = { ...episode, conditions: { ...episode.conditions, [name]: closed } };
    const conditions = Object.values(next.conditions);
    if (conditions.some((condition) => condition.closedAt === undefined)) {
      routing.state.kv.set(NAMESPACE, CURRENT, next);
      return 0;
    }
    routing.state.kv.delete(NAMESPACE, CURRENT);
    // Begun and over within one pass: the problem is told first, then its end.
    const problem = told(routing, origin, episode);
    const channels = conditions.flatMap((condition) => condition.recoveryChannels ?? []);
    const recovery = `episode:${episode.id}:recovered`;
    return problem + enqueue(routing, channels, recovery, recoveryMessage(next, routing, origin));
  });
}

/** A length of time as people say it: "40 s", "12 min", "3 h 5 min", "2 d 4 h". */
export function spanText(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (ms < 60_000) return `${Math.max(0, Math.round(ms / 1000))} s`;
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h${minutes % 60 === 0 ? '' : ` ${minutes % 60} min`}`;
  return `${Math.floor(hours / 24)} d${hours % 24 === 0 ? '' : ` ${hours % 24} h`}`;
}

function problemMessage(episode: Episode, routing: Routing, origin: MessageOrigin): NotificationMessage {
  const open = Object.values(episode.conditions).filter((condition) => condition.closedAt === undefined);
  const first = open[0] ?? Object.values(episode.conditions)[0];
  const intro =
    open.length > 1
      ? `${open.length} problems since ${zonedTime(episode.startedAt, routing.timezone)}, told together in this one message; one more follows when all are over.`
      : `A problem since ${zonedTime(episode.startedAt, routing.timezone)}; one more message follows when it is over.`;
  return simpleMessage(
    first?.event ?? 'job_failed',
    'error',
    open.map((condition) => condition.title).join('; '),
    [
      intro,
      ...open.map((condition) => [condition.title, ...condition.paragraphs].join('\n')),
      ...statusPageLines(routing),
    ],
    origin,
  );
}

function recoveryMessage(episode: Episode, routing: Routing, origin: MessageOrigin): NotificationMessage {
  const conditions = Object.values(episode.conditions);
  const ended = Math.max(...conditions.map((condition) => condition.closedAt ?? episode.startedAt));
  const length = spanText(ended - episode.startedAt);
  const jobs = conditions.some((condition) => condition.name.startsWith('job:'));
  return simpleMessage(
    jobs ? 'job_recovered' : 'readiness_restored',
    'ok',
    `Resolved after ${length}: ${conditions.map((condition) => condition.title).join('; ')}`,
    [
      `The problem that began ${zonedTime(episode.startedAt, routing.timezone)} is over since ${zonedTime(ended, routing.timezone)} (${length}).`,
      ...conditions.map((condition) => condition.closing ?? condition.title),
      ...statusPageLines(routing),
    ],
    origin,
  );
}
