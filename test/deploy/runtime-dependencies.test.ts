/**
 * The Docker image's runtime stage keeps only production dependencies (`npm prune --omit=dev`) and the compiled
 * code. A package the daemon imports at run time but that package.json lists under devDependencies works in every
 * checkout and test, and fails only in the image. This reads every import of the shipped code instead.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What tsconfig.build.json compiles into dist/, the code the image runs. */
const SHIPPED = ['src', 'connectors'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

/** Packages a module loads at run time: value imports, re-exports and dynamic imports (type-only ones vanish). */
function runtimePackages(source: string): string[] {
  const specifiers: string[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+'([^']+)'/gm;
  for (const match of source.matchAll(statement)) {
    if (match[2] === undefined && match[3] !== undefined) specifiers.push(match[3]);
  }
  for (const match of source.matchAll(/^\s*import\s+'([^']+)'/gm)) specifiers.push(match[1] ?? '');
  for (const match of source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)) specifiers.push(match[1] ?? '');
  return specifiers.filter((s) => !s.startsWith('.') && !s.startsWith('node:')).map(packageName);
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier);
}

describe('the image runtime', () => {
  it('finds each package the shipped code imports among the production dependencies', () => {
    const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    const builtins = new Set(builtinModules);
    const missing: string[] = [];
    let imports = 0;
    for (const file of SHIPPED.flatMap((dir) => sourceFiles(path.join(ROOT, dir)))) {
      for (const pkg of runtimePackages(readFileSync(file, 'utf8'))) {
        imports += 1;
        if (!builtins.has(pkg) && !(pkg in manifest.dependencies)) {
          missing.push(`${path.relative(ROOT, file)} imports ${pkg}`);
        }
      }
    }
    expect(imports).toBeGreaterThan(20);
    expect(missing).toEqual([]);
  });

  it('reads value, re-exported and dynamic imports, and skips type-only ones', () => {
    const source = [
      "import pg from 'pg';",
      "import type { Logger } from 'pino';",
      "export { z } from 'zod';",
      "export type { Dispatcher } from 'undici';",
      "import {\n  a,\n  b,\n} from '@scope/pkg/sub';",
      "const m = await import('mssql');",
      "import './local.js';",
      "import { readFile } from 'node:fs';",
    ].join('\n');
    expect(runtimePackages(source).sort()).toEqual(['@scope/pkg', 'mssql', 'pg', 'zod']);
  });

  it('copies into the runtime stage everything the compiled CLI reads', () => {
    const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    for (const copied of ['/app/node_modules', '/app/dist', 'package.json', 'bin', 'config']) {
      expect(runtime).toContain(copied);
    }
    // The build stage compiles exactly the shipped folders.
    for (const dir of SHIPPED) expect(dockerfile).toContain(`COPY ${dir} ./${dir}`);
    const build = JSON.parse(readFileSync(path.join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      include: string[];
    };
    expect(build.include.sort()).toEqual([...SHIPPED].sort());
  });
});
