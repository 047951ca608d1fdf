import { describe, expect, it } from 'vitest';
import { LeadershipLostError as HaLeadershipLostError } from '../../../src/ha/index.js';
import { LeadershipLostError } from '../../../src/state/index.js';
import { RecordProblem, recordFailureReason } from '../../../src/flows/shared/failures.js';

const running = new AbortController().signal;

describe('recordFailureReason', () => {
  it('stops the run on a lost term, from the state or from the elector, instead of filing a dead letter', () => {
    const fromState = new LeadershipLostError('refused by the fence');
    const fromElector = new HaLeadershipLostError('not_leader', 'this instance is not the leader', null);
    expect(() => recordFailureReason(fromState, running)).toThrow(fromState);
    expect(() => recordFailureReason(fromElector, running)).toThrow(fromElector);
  });

  it('files a record problem with its message', () => {
    expect(recordFailureReason(new RecordProblem('no ERP customer for buyer buy_1'), running)).toBe(
      'no ERP customer for buyer buy_1',
    );
  });
});
