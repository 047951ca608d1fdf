#!/usr/bin/env node
// Thin launcher: the CLI lives in the compiled TypeScript under dist/.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('supply-sync is not built yet: run `npm run build` first.');
  process.exit(1);
}
await import(entry.href);
