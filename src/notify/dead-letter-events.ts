/**
 * Dead letters, batched: one message per job and quiet period, listing what is new by reason. What is covered and
 * when the job was last told are kept with the queued message in one transaction, so a crash repeats nothing.
 */
import { missingMappingFix } from '../shared/missing-mapping.js';
import { NotificationSources, type NewDeadLetters } from '../state/index.js';
import { simpleMessage, type MessageOrigin } from './message.js';
import { channelsOf, enqueue, rulesFor, type Routing } from './routing.js';

const NAMESPACE = 'notifications';

interface Covered {
  /** first_seen of the newest dead letter already reported. */
  readonly upTo: number;
  readonly toldAt: number;
}

export function deriveDeadLetters(
  routing: Routing,
  origin: MessageOrigin,
  jobs: Iterable<string>,
  now: number,
): number {
  const sources = new NotificationSources(routing.state.db);
  let queued = 0;
  for (const job of jobs) {
    const rules = rulesFor(routing.config, 'dead_letters', job);
    if (rules.length === 0) continue;
    const key = `dead_letters:${job}`;
    const covered = (routing.state.kv.get(NAMESPACE, key) as Covered | undefined) ?? { upTo: now, toldAt: 0 };
    if (routing.state.kv.get(NAMESPACE, key) === undefined) {
      routing.state.kv.set(NAMESPACE, key, covered); // from now on: older dead letters are not news
      continue;
    }
    const quiet = Math.min(...rules.map((rule) => rule.quiet_period));
    if (now - covered.toldAt < quiet) continue;
    const groups = sources.deadLettersSince(job, covered.upTo);
    if (groups.length === 0) continue;
    const total = groups.reduce((sum, group) => sum + group.count, 0);
    const upTo = Math.max(...groups.map((group) => group.newest));
    const message = simpleMessage(
      'dead_letters',
      'warning',
      `Job ${job}: ${total} record(s) held back`,
      [
        `Job ${job} set aside ${total} record(s) it could not process. By reason:`,
        ...groups.map((group) => byReason(group, origin.config, job)),
        `See them with: supply-sync dead-letters list --flow ${job}`,
      ],
      origin,
    );
    queued += routing.state.transaction(() => {
      routing.state.kv.set(NAMESPACE, key, { upTo, toldAt: now } satisfies Covered);
      return enqueue(routing, channelsOf(rules), `dead_letters:${job}:${upTo}`, message);
    });
  }
  return queued;
}

function byReason(group: NewDeadLetters, configFile: string, job: string): string {
  const lines = [`${group.count} × ${group.reason}`, `(for example: ${group.examples.join(', ')})`];
  if (group.missing !== null) lines.push(`To fix: ${missingMappingFix(group.missing, configFile, job)}.`);
  return lines.join('\n');
}
