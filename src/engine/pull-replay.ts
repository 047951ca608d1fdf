import type { MissingMapping } from '../shared/missing-mapping.js';
import { itemOfLetter, letterRecord } from './dead-letter-record.js';
import { errorMessage } from './outcome.js';
import type { PullOptions } from './pull-types.js';

/**
 * Re-processes the dead letters an operator queued (status "retrying") through the same stage/deliver path as
 * new records. A success resolves the letter; a failure puts it back to "open" with the new reason.
 */
export async function replayDeadLetters<T>(
  options: PullOptions<T>,
  signal: AbortSignal,
): Promise<{ resolved: number; failed: number }> {
  const { state } = options;
  const flow = options.flow ?? options.stream;
  const letters = state.deadLetters.list({ flow, statuses: ['retrying'] });
  let resolved = 0;
  let failed = 0;
  for (const letter of letters) {
    if (signal.aborted) break;
    // The stored record is the item as the source sent it (JSON round trip).
    const item = itemOfLetter(letter.record) as T;
    let reason: string | undefined;
    let missing: MissingMapping | undefined;
    try {
      options.identify(item);
      if (options.deliver) {
        const failures = (await options.deliver([item], signal)) ?? [];
        reason = failures[0]?.reason;
        missing = failures[0]?.missing;
      }
      if (reason === undefined && options.stageRecord) {
        const stage = options.stageRecord;
        state.transaction(() => {
          stage(item, state);
          state.deadLetters.resolve(flow, letter.recordKey);
        });
      }
    } catch (error) {
      reason = errorMessage(error);
    }
    if (reason === undefined) {
      state.deadLetters.resolve(flow, letter.recordKey);
      resolved += 1;
    } else {
      state.deadLetters.add(flow, letter.recordKey, letterRecord(item, missing), reason);
      failed += 1;
    }
  }
  return { resolved, failed };
}
