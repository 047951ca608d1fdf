/** A world's id range: the ids a created account's world hands out end where the next world's begin. */
import { describe, expect, it } from 'vitest';
import { createSandboxDomain } from '../../../src/sandbox/domain/index.js';
import { createManualClock } from '../../../src/sandbox/platform/manual-clock.js';

const services = () => ({
  clock: createManualClock(),
  raise: () => undefined,
  files: { exists: () => false, markReferenced: () => undefined },
});

describe("a world's id range", () => {
  it('hands out ids from its first id, and refuses one past its last with what to do', () => {
    const world = createSandboxDomain(services(), { seed: 3, firstId: 50_000_001, lastId: 60_000_000 });
    const { journal_line_ids: ids } = world.actions['approve_journal_lines']?.({ count: 3 }) as {
      journal_line_ids: string[];
    };
    // Base 36 of 50,000,001 and more: every id of this world is above the first.
    for (const id of ids) expect(parseInt(id.split('_').at(-1) ?? '', 36)).toBeGreaterThan(50_000_000);

    const full = createSandboxDomain(services(), { seed: 3, firstId: 1, lastId: 10 });
    expect(() => full.actions['approve_journal_lines']?.({ count: 3 })).toThrow(
      /this world has handed out all its ids \(up to 10\); start a new sandbox/,
    );
  });
});
