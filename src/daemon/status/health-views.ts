/** What the daemon shows of dead letters and run counts on the status page and in metrics. */
import type { DeadLetterStatus } from '../../ops/index.js';
import type { StateStore } from '../../state/index.js';

/** Open dead letters listed per flow on the status page. */
const LATEST_DEAD_LETTERS = 5;

/** A run's count names (deadLettered, rows_written...) as metric label values (dead_lettered, rows_written). */
export function recordOutcomeLabel(kind: string): string {
  return kind.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

export function deadLetterStatus(state: StateStore): DeadLetterStatus {
  const byFlow = state.deadLetters.countOpenByFlow();
  const flows = Object.entries(byFlow).map(([flow, open]) => ({
    flow,
    open,
    latest: state.deadLetters
      .latestOpen(flow, LATEST_DEAD_LETTERS)
      .map((letter) => ({ recordKey: letter.recordKey, reason: letter.reason, lastSeen: letter.lastSeen })),
  }));
  return { open: state.deadLetters.countOpen(), byFlow, flows };
}
