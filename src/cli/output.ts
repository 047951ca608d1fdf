/** Terminal-aware output: progress lines only on a TTY, quiet in a pipe until a wait lasts. */
export interface Output {
  /** Result lines (stdout). */
  line(text: string): void;
  /** Human notes (stderr). */
  note(text: string): void;
  /** A transient progress line on a TTY; nothing in a pipe or file. */
  progress(text: string): void;
  /**
   * What the command waits for: a progress line on a TTY at once; in a pipe or file, a note once the wait has
   * lasted WAIT_NOTE_AFTER_MS, so a quick command stays quiet and a long wait is never silent in a log.
   */
  waiting(text: string): void;
  /** Ends a progress line, if any, and a wait's pending note. */
  done(): void;
  readonly isTty: boolean;
}

export const WAIT_NOTE_AFTER_MS = 15_000;

export function createOutput(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): Output {
  const isTty = stderr.isTTY === true;
  let progressShown = false;
  let waitNote: NodeJS.Timeout | undefined;
  const progress = (text: string): void => {
    if (!isTty) return;
    stderr.write(`\r\x1b[2K${text}`);
    progressShown = true;
  };
  return {
    isTty,
    line: (text) => {
      stdout.write(`${text}\n`);
    },
    note: (text) => {
      stderr.write(`${text}\n`);
    },
    progress,
    waiting: (text) => {
      if (isTty) return progress(text);
      clearTimeout(waitNote);
      const seconds = Math.round(WAIT_NOTE_AFTER_MS / 1000);
      waitNote = setTimeout(() => stderr.write(`${text} (${seconds} s so far)\n`), WAIT_NOTE_AFTER_MS);
      // The note never keeps the process alive on its own.
      waitNote.unref();
    },
    done: () => {
      clearTimeout(waitNote);
      waitNote = undefined;
      if (progressShown) stderr.write('\n');
      progressShown = false;
    },
  };
}
