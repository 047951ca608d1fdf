/**
 * Events that are changes of a condition the daemon watches (readiness, a refused API key, who leads): the last
 * state told is kept in the state, and a change is queued with it in one transaction, once.
 */
import type { NotificationEvent } from '../config/index.js';
import { simpleMessage, type MessageOrigin, type Severity } from './message.js';
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
    if (stored === undefined && change.event !== 'leadership_gained') return 0;
    const rules = rulesFor(routing.config, change.event);
    const message = simpleMessage(change.event, change.severity, change.subject, change.paragraphs, origin);
    return enqueue(routing, channelsOf(rules), `${change.event}:${change.condition}:${now}`, message);
  });
}
