/**
 * CPU time (user + system) a process has used so far, read from /proc/<pid>/stat, so a benchmark can say which of
 * its processes took the cores during a window. Linux only: undefined elsewhere or when the process is gone.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat on Linux (USER_HZ, 100 on every common build). */
const TICKS_PER_SECOND = 100;

export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    if (error instanceof Error && 'code' in error && (error.code === 'ENOENT' || error.code === 'ESRCH'))
      return undefined;
    throw error;
  }
  // The command name (field 2) is in parentheses and may hold spaces: fields are counted after its ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15, the 12th and 13th after the command name.
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) return undefined;
  return ((user + system) * 1000) / TICKS_PER_SECOND;
}
