/** Runs the load generator in a child process and returns its result. */
import { fileURLToPath } from 'node:url';
import type { LoadConfig, LoadResult } from './load-generator.js';
import { runJsonChild } from './run-child.js';

const CHILD = fileURLToPath(new URL('./load-child.ts', import.meta.url));

export function generateLoadInChild(config: LoadConfig): Promise<LoadResult> {
  // The child is bounded by its own duration; the timeout guards against a hung server.
  return runJsonChild<LoadResult>(CHILD, config, config.warmupMs + config.durationMs + 60_000);
}
