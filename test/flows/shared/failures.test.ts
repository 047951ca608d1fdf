import { describe, expect, it } from 'vitest';
import { LeadershipLostError } from '../../../src/state/index.js';
import { RecordProblem, recordFailureReason } from '../../../src/flows/shared/failures.js';

const running = new AbortController().signal;

describe('recordFailureReason', () => {
  it('stops the run on a lost term, refused by the fence or by the write gate, instead of filing a dead letter', () => {
    const fromFence = new LeadershipLostError('lease_taken', 'leadership lost: term 1 ended', 1);
    const fromGate = new LeadershipLostError('not_leader', 'this instance is not the leader', null);
    expect(() => recordFailureReason(fromFence, running)).toThrow(fromFence);
    expect(() => recordFailureReason(fromGate, running)).toThrow(fromGate);
  });

  it('files a record problem with its message', () => {
    expect(recordFailureReason(new RecordProblem('no ERP customer for buyer buy_1'), running)).toBe(
      'no ERP customer for buyer buy_1',
    );
  });
});
