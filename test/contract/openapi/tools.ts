/** Where the external OpenAPI tools live in node_modules, and whether they are installed. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const DOCUMENT_PATH = join(ROOT, 'docs', 'openapi.json');

const require = createRequire(import.meta.url);

/** The CLI entry script of an installed package's bin, or undefined when the package is absent. */
export function binScript(pkg: string, bin: string): string | undefined {
  try {
    const manifestPath = require.resolve(`${pkg}/package.json`);
    const manifest = require(manifestPath) as { bin?: string | Record<string, string> };
    const relative = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[bin];
    if (relative === undefined) return undefined;
    const script = join(dirname(manifestPath), relative);
    return existsSync(script) ? script : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A devDependency that is not installed skips its tests with a clear message, except under
 * SUPPLY_SYNC_REQUIRE_SERVICES=1 (CI), where a test is registered that fails with the reason.
 */
export function requireTool(name: string, script: string | undefined): boolean {
  if (script !== undefined) return true;
  const reason = `${name} is not installed (run npm ci: it is a devDependency)`;
  if (process.env['SUPPLY_SYNC_REQUIRE_SERVICES'] === '1') {
    describe(`${name} is required (SUPPLY_SYNC_REQUIRE_SERVICES=1)`, () => {
      it(`finds ${name}`, () => {
        throw new Error(reason);
      });
    });
  } else {
    console.warn(`skipping: ${reason}`);
  }
  return false;
}
