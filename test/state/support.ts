import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../src/shared/clock.js';

/** A clock tests drive by hand; sleeping advances it. */
export class FakeClock implements Clock {
  constructor(public t = Date.parse('2026-03-01T08:00:00.000Z')) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  sleep(ms: number): Promise<void> {
    this.t += ms;
    return Promise.resolve();
  }
}

export interface TempDir {
  dir: string;
  file(name: string): string;
  remove(): void;
}

export function tempDir(prefix = 'supply-sync-state-'): TempDir {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file: (name) => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
