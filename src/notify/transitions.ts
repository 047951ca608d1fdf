/**
 * Events that are changes of a condition the daemon watches (readiness, a refused API key, who leads): the last
 * state told is kept in the state, and a change is queued with it in one transaction, once.
 */
import type { NotificationEvent } from '../config/index.js';
import { simpleMessage, zonedTime, type MessageOrigin, type Severity } from './message.js';
import { channelsOf, enqueue, rulesFor, type Routing } from './routing.js';

const NAMESPACE = 'notifications';

export interface Transition {
  /** Names the condition, e.g. "readiness" or "api_key:supplier". */
  readonly condition: string;
  /** The value now; a change from the stored one is an event. */
  readonly value: string;
  readonly event: NotificationEvent;
  readonly severity: Severity;
  readonly subject: string;
  readonly paragraphs: readonly string[];
  /** False for a return to normal that no event names (a key accepted again): stored, not sent. */
  readonly notify?: boolean;
}

/** Queues the transition when `value` differs from what was stored; the first value seen is only stored. */
export function noteTransition(
  routing: Routing,
  origin: MessageOrigin,
  change: Transition,
  now: number,
): number {
  const key = `condition:${change.condition}`;
  const stored = routing.state.kv.get(NAMESPACE, key);
  if (stored === change.value) return 0;
  return routing.state.transaction(() => {
    routing.state.kv.set(NAMESPACE, key, change.value);
    if (change.notify === false || (stored === undefined && change.event !== 'leadership_gained')) return 0;
    const rules = rulesFor(routing.config, change.event);
    const message = simpleMessage(change.event, change.severity, change.subject, change.paragraphs, origin);
    return enqueue(routing, channelsOf(rules), `${change.event}:${change.condition}:${now}`, message);
  });
}

/**
 * `holder` (the lease holder's ha.instance) leads: leadership_gained, and leadership_lost for the instance that led
 * before (a deposed leader cannot write to the shared state any more, so its successor tells). Keyed on the HA
 * identity, not on the display label: notifications.instance is shared by both instances of a pair.
 */
export function noteLeadership(
  routing: Routing,
  origin: MessageOrigin,
  holder: string,
  epoch: number,
  now: number,
): number {
  const previous = routing.state.kv.get(NAMESPACE, 'condition:leader');
  if (previous === holder) return 0;
  return routing.state.transaction(() => {
    routing.state.kv.set(NAMESPACE, 'condition:leader', holder);
    let queued = enqueue(
      routing,
      channelsOf(rulesFor(routing.config, 'leadership_gained')),
      `leadership_gained:${holder}:${epoch}`,
      simpleMessage(
        'leadership_gained',
        'info',
        `${holder} now leads and runs the jobs`,
        [`Instance ${holder} became leader (term ${epoch}) at ${zonedTime(now, routing.timezone)}.`],
        origin,
      ),
    );
    if (typeof previous === 'string') {
      queued += enqueue(
        routing,
        channelsOf(rulesFor(routing.config, 'leadership_lost')),
        `leadership_lost:${previous}:${epoch}`,
        simpleMessage(
          'leadership_lost',
          'warning',
          `${previous} lost the leadership`,
          [`Instance ${previous} no longer leads; ${holder} took over (term ${epoch}).`],
          origin,
        ),
      );
    }
    return queued;
  });
}
