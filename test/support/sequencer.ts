/**
 * The order in which `npm test` starts its test files: the long runs (kill -9 and crash tests, see suites.ts)
 * first, then the rest in vitest's own order. Without durations cached from an earlier run, as in a fresh clone,
 * vitest starts larger files first, and the whole-daemon crash tests, short files that run for up to a minute, came
 * near the end, where one test process could be left running one of them while the other had nothing to do.
 */
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { LONG_RUNS } from './suites.js';

/** A glob of LONG_RUNS (`**` and `*` only) as a regular expression over a path relative to the root. */
function globPattern(glob: string): RegExp {
  const source = glob
    .split('/')
    .map((part) =>
      part === '**'
        ? '(?:[^/]+/)*'
        : `${part.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}/`,
    )
    .join('')
    .replace(/\/$/, '');
  return new RegExp(`^${source}$`);
}

const LONG_RUN_PATTERNS = LONG_RUNS.map(globPattern);

export function isLongRun(relativePath: string): boolean {
  return LONG_RUN_PATTERNS.some((pattern) => pattern.test(relativePath.split(path.sep).join('/')));
}

export class LongRunsFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const long = (file: TestSpecification): boolean =>
      isLongRun(path.relative(this.ctx.config.root, file.moduleId));
    return [...sorted.filter(long), ...sorted.filter((file) => !long(file))];
  }
}
