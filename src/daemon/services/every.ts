/** A background loop on the daemon's clock: a task every interval, until stopped. */
import type { Logger } from 'pino';
import type { Clock } from '../../shared/clock.js';
import type { StopOptions } from './service.js';

export interface Loop {
  /**
   * Ends the loop: a task under way is given an aborted signal and waited for up to `timeoutMs` of the clock's
   * time. Resolves true when the loop ended, false when a task was still running then (it is left behind).
   */
  stop(timeoutMs: number): Promise<boolean>;
}

/**
 * Runs `task` every `intervalMs` of the clock's time; a failing task is reported and the loop keeps its rhythm. The
 * loop waits on `waitClock` (an office's coalescing clock, Environment.loopClock), its stop's deadline on `clock`.
 */
export function every(
  clock: Clock,
  intervalMs: number,
  task: (signal: AbortSignal) => unknown,
  onError: (error: unknown) => void,
  waitClock: Clock = clock,
): Loop {
  const abort = new AbortController();
  const { signal } = abort;
  const loop = async (): Promise<void> => {
    while (!signal.aborted) {
      try {
        await waitClock.sleep(intervalMs, signal);
      } catch {
        return; // stopped
      }
      try {
        await task(signal);
      } catch (error) {
        if (!signal.aborted) onError(error);
      }
    }
  };
  const running = loop();
  return {
    stop: async (timeoutMs) => {
      abort.abort(new Error('stopped'));
      const deadline = new AbortController();
      const timedOut = clock.sleep(timeoutMs, deadline.signal).then(
        () => true,
        () => false,
      );
      const ended = await Promise.race([running.then(() => true), timedOut.then((late) => !late)]);
      deadline.abort();
      return ended;
    },
  };
}

/** Stops `loop` within the stop's time; a task still running then is logged by name and left behind. */
export async function stopLoop(
  loop: Loop | undefined,
  options: StopOptions,
  logger: Pick<Logger, 'warn'>,
  task: string,
): Promise<void> {
  if (loop === undefined || (await loop.stop(options.timeoutMs))) return;
  logger.warn({ task, timeoutMs: options.timeoutMs }, 'still running when the stop timed out; left running');
}
