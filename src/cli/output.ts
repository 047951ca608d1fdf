/** Terminal-aware output: progress lines only on a TTY, quiet in a pipe. */
export interface Output {
  /** Result lines (stdout). */
  line(text: string): void;
  /** Human notes (stderr). */
  note(text: string): void;
  /** A transient progress line on a TTY; nothing in a pipe or file. */
  progress(text: string): void;
  /** Ends a progress line, if any. */
  done(): void;
  readonly isTty: boolean;
}

export function createOutput(
  stdout: NodeJS.WriteStream = process.stdout,
  stderr: NodeJS.WriteStream = process.stderr,
): Output {
  const isTty = stderr.isTTY === true;
  let progressShown = false;
  return {
    isTty,
    line: (text) => {
      stdout.write(`${text}\n`);
    },
    note: (text) => {
      stderr.write(`${text}\n`);
    },
    progress: (text) => {
      if (!isTty) return;
      stderr.write(`\r\x1b[2K${text}`);
      progressShown = true;
    },
    done: () => {
      if (progressShown) stderr.write('\n');
      progressShown = false;
    },
  };
}
