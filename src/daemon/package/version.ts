/** The running version, from the installed package's manifest. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

let cached: string | undefined;

function readVersion(): string {
  try {
    const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    return typeof manifest.version === 'string' ? manifest.version : 'unknown';
  } catch (error) {
    // Every command builds its help with the version: a copy without its manifest still runs, and says so.
    return `unknown (${error instanceof Error ? error.message : String(error)})`;
  }
}

export function packageVersion(): string {
  cached ??= readVersion();
  return cached;
}
