/**
 * Without HA, a one-shot command (`sync --no-wait`, `cursor reset`, or a waiting command that acts itself once no
 * daemon holds the state) takes the state file's lock for its length. A daemon starting in that instant waits for
 * it to let go, up to a bound, instead of exiting `state_locked`; another daemon's hold is refused at once.
 */
import type { Logger } from 'pino';
import { StateLockedError } from '../../state/index.js';

/** How long a starting daemon waits for a one-shot command's hold on the state file. */
export const DAEMON_LOCK_WAIT_MS = 60_000;
const RETRY_MS = 200;

export async function openWaitingOutOneShots<T>(open: () => T, waitMs: number, logger: Logger): Promise<T> {
  const deadline = Date.now() + waitMs;
  let told = false;
  for (;;) {
    try {
      return open();
    } catch (error) {
      if (!(error instanceof StateLockedError) || error.holder?.kind === 'daemon' || Date.now() >= deadline) {
        throw error;
      }
      if (!told) {
        logger.info(
          { holder: error.holder, waitMs },
          'the state file is held by a one-shot supply-sync command; waiting for it to finish',
        );
        told = true;
      }
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }
}
