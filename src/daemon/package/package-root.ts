/** Finds the installed package's root (where package.json and config/ live), from source or compiled code alike. */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function packageRoot(from: string = fileURLToPath(import.meta.url)): string {
  let dir = dirname(from);
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest)) {
      const { name } = JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown };
      if (name === 'supply-sync') return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the supply-sync package root');
    dir = parent;
  }
}
