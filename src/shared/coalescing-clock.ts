/**
 * A clock whose sleeps end on the next whole slot (a second by default) after their time, and share one sleep of the
 * underlying clock per slot. An office's 300 companies each wait in a few background loops (the command queue every
 * 10 s, the connector check every 30 s...): on their own clocks that is a timer, and a wake of the process, every few
 * milliseconds; here the loops due in the same second wake once, together. A sleep lasts at most one slot longer
 * (a sleep of 0 too: this clock is for background loops, not for waits that must end at once). Slots are whole
 * seconds of the base clock's time: after a step back of the system's clock, a sleep may end early by that step.
 */
import type { Clock } from './clock.js';

interface Slot {
  readonly waiters: Set<() => void>;
  readonly cancel: AbortController;
}

export const DEFAULT_SLOT_MS = 1_000;

export function coalescingClock(base: Clock, slotMs = DEFAULT_SLOT_MS): Clock {
  const slots = new Map<number, Slot>();

  const slotFor = (end: number): Slot => {
    const existing = slots.get(end);
    if (existing !== undefined) return existing;
    const slot: Slot = { waiters: new Set(), cancel: new AbortController() };
    slots.set(end, slot);
    const wakeAll = (): void => {
      if (slots.get(end) === slot) slots.delete(end);
      for (const wake of slot.waiters) wake();
    };
    // A base sleep that fails for another reason than every waiter giving up wakes them early rather than never.
    base
      .sleep(Math.max(0, end - base.now()), slot.cancel.signal)
      .then(wakeAll, () => (slot.cancel.signal.aborted ? undefined : wakeAll()));
    return slot;
  };

  return {
    now: () => base.now(),
    sleep: (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const end = Math.ceil((base.now() + Math.max(0, ms)) / slotMs) * slotMs;
        const slot = slotFor(end);
        const onAbort = (): void => {
          slot.waiters.delete(wake);
          if (slot.waiters.size === 0 && slots.get(end) === slot) {
            slots.delete(end);
            slot.cancel.abort();
          }
          reject(signal?.reason);
        };
        const wake = (): void => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        slot.waiters.add(wake);
        signal?.addEventListener('abort', onAbort, { once: true });
      }),
  };
}
