/** The running version, from the installed package's manifest. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

let cached: string | undefined;

export function packageVersion(): string {
  if (cached === undefined) {
    const manifest = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as {
      version?: unknown;
    };
    cached = typeof manifest.version === 'string' ? manifest.version : 'unknown';
  }
  return cached;
}
