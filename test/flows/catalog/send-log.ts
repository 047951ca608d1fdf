/** The catalog crash tests' log of what each child process was about to send, read back whole entries only. */
import { readFileSync } from 'node:fs';
import type { SendLogEntry } from './child.js';

export function readSendLog(file: string): SendLogEntry[] {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  // A SIGKILL can cut a process's last line short, and the next process's first entry then goes on the same line:
  // only whole entries count (a cut one was written before its call, which the kill kept from being made).
  return text.split('\n').flatMap((line) => {
    const start = line.lastIndexOf('{"pid":');
    if (start < 0 || !line.endsWith('}')) return [];
    try {
      return [JSON.parse(line.slice(start)) as SendLogEntry];
    } catch {
      return [];
    }
  });
}
