/**
 * `supply-sync runs | head -1`: once the reader has gone, a write fails with EPIPE. What was wanted has been read,
 * so the CLI ends at once and quietly, as the classic tools do, instead of printing a stack trace.
 */
export function endQuietlyOnBrokenPipe(
  streams: readonly NodeJS.WriteStream[],
  exit: (code: number) => void,
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') exit(0);
      else throw error;
    });
  }
}
