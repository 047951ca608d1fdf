/**
 * Conditions the daemon watches (readiness, a refused API key) join the open episode when they go wrong, whatever
 * was stored before (a key refused at the very first start is news), and leave it when they are right again; who
 * leads is told on its own, once per term.
 */
import type { NotificationEvent } from '../config/index.js';
import { closeCondition, openCondition, openValue } from './episodes.js';
import { simpleMessage, zonedTime, type MessageOrigin } from './message.js';
import { channelsOf, enqueue, rulesFor, type Routing } from './routing.js';

const NAMESPACE = 'notifications';

export interface Transition {
  /** Names the condition, e.g. "readiness" or "api_key:supplier". */
  readonly condition: string;
  /** What is wrong (e.g. "key_revoked"); another value while open updates the condition. */
  readonly value: string;
  /** open: wrong now; clear: right now; unknown: nothing tells yet (no call made since the start). */
  readonly state: 'open' | 'clear' | 'unknown';
  /** The event naming it wrong (its rules pick the channels). */
  readonly event: NotificationEvent;
  /** Whose rules hear that it is right again; the opening event's rules when absent. */
  readonly recoveryEvent?: NotificationEvent;
  /** Since when it is wrong, when known (else the pass that sees it). */
  readonly since?: number;
  readonly title: string;
  /** What is wrong and the fix. */
  readonly paragraphs: readonly string[];
  /** Said in the recovery message when it is right again. */
  readonly cleared: string;
}

export function noteTransition(
  routing: Routing,
  origin: MessageOrigin,
  change: Transition,
  now: number,
): number {
  if (change.state === 'unknown') return 0;
  if (change.state === 'clear') {
    const channels = channelsOf(rulesFor(routing.config, change.recoveryEvent ?? change.event));
    return closeCondition(routing, origin, change.condition, {
      at: now,
      sentence: `${change.cleared} (${zonedTime(now, routing.timezone)}).`,
      channels,
    });
  }
  if (openValue(routing, change.condition) === change.value) return 0;
  const rules = rulesFor(routing.config, change.event);
  if (rules.length === 0) return 0;
  const condition = {
    name: change.condition,
    event: change.event,
    value: change.value,
    since: change.since ?? now,
    title: change.title,
    paragraphs: change.paragraphs,
  };
  openCondition(routing, condition, channelsOf(rules), now);
  return 0;
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
