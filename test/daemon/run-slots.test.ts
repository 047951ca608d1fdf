/** The office's bound on runs going at once: counted by the runs themselves, not by time. */
import { describe, expect, it } from 'vitest';
import { RunSlots } from '../../src/daemon/jobs/run-slots.js';

function gate(): { open: () => void; opened: Promise<void> } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('run slots', () => {
  it('lets at most `size` runs go at once, the others in the order they asked', async () => {
    const slots = new RunSlots(2);
    const gates = Array.from({ length: 5 }, gate);
    let inside = 0;
    let most = 0;
    const started: number[] = [];
    const runs = gates.map((g, index) =>
      slots.within(
        async () => {
          inside += 1;
          most = Math.max(most, inside);
          started.push(index);
          await g.opened;
          inside -= 1;
        },
        undefined,
        `company-${index}`,
      ),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(slots.busy).toBe(2);
    for (const g of gates) g.open();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
    expect(slots.busy).toBe(0);
  });

  it('gives a slot back when a run fails, and drops a waiting run that is aborted', async () => {
    const slots = new RunSlots(1);
    const held = gate();
    const first = slots.within(async () => {
      await held.opened;
      throw new Error('run failed');
    });
    const abort = new AbortController();
    let abortedRan = false;
    const aborted = slots.within(async () => {
      abortedRan = true;
    }, abort.signal);
    let laterRan = false;
    const later = slots.within(async () => {
      laterRan = true;
    });
    abort.abort(new Error('stopping'));
    await expect(aborted).rejects.toThrow('stopping');
    held.open();
    await expect(first).rejects.toThrow('run failed');
    await later;
    expect(abortedRan).toBe(false);
    expect(laterRan).toBe(true);
    expect(slots.busy).toBe(0);
  });

  it("holds one company to half of the slots, so another company's run goes first", async () => {
    const slots = new RunSlots(4);
    expect(slots.perOwner).toBe(2);
    const gates = Array.from({ length: 4 }, gate);
    const started: string[] = [];
    const run = (owner: string, g: ReturnType<typeof gate>) =>
      slots.within(
        async () => {
          started.push(owner);
          await g.opened;
        },
        undefined,
        owner,
      );
    const slow = [
      run('slow', gates[0] as never),
      run('slow', gates[1] as never),
      run('slow', gates[2] as never),
    ];
    const other = run('other', gates[3] as never);
    await Promise.resolve();
    // The third slow run waits although two slots are free; the other company's run, asked for later, goes.
    expect(started).toEqual(['slow', 'slow', 'other']);
    expect(slots.busy).toBe(3);
    for (const g of gates) g.open();
    await Promise.all([...slow, other]);
    expect(started).toEqual(['slow', 'slow', 'other', 'slow']);
  });
});
