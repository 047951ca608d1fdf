/**
 * Dead letters, batched: one message per job and quiet period, listing what is new by reason. What is covered and
 * when the job was last told are kept with the queued message in one transaction, so a crash repeats nothing.
 */
import { sumMoney } from '../shared/decimal.js';
import { NotificationSources } from '../state/index.js';
import { heldBackAmount, heldBackGroup, ilsText } from './held-back.js';
import { simpleMessage, type MessageOrigin } from './message.js';
import { channelsOf, enqueue, rulesFor, statusPageLines, type Routing } from './routing.js';

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
    const lines = groups.reduce((sum, group) => sum + group.lines, 0);
    const totals = groups.flatMap((group) => (group.total === null ? [] : [group.total]));
    const money = totals.length === 0 ? null : sumMoney(totals);
    const message = simpleMessage(
      'dead_letters',
      'warning',
      `Job ${job}: ${total} record(s) held back${money === null ? '' : ` (${ilsText(money)})`}`,
      [
        `Job ${job} set aside ${heldBackAmount(total, lines, money)} it could not process. By reason:`,
        ...groups.map((group) => heldBackGroup(group, origin.config, job)),
        `See them with: supply-sync dead-letters list --flow ${job}`,
        ...statusPageLines(routing),
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
