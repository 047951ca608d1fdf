/**
 * Test support stays out of what ships: the OData emulators (test/support/odata-emulator/) answer as SAP Business One
 * and Priority would, so a copy in the build or the release tarball would be a fake ERP an installation could be
 * pointed at. The file lists here are the ones the build (TypeScript reading tsconfig.build.json) and the release
 * (scripts/release.ts) use; test/deploy/release.test.ts checks the unpacked tarball itself.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { shippedSources } from '../../scripts/release.js';

const ROOT = resolve(import.meta.dirname, '../..');

function buildFiles(): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.build.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  if (parsed === undefined) throw new Error('tsconfig.build.json could not be read');
  return parsed.fileNames.map((file) => relative(ROOT, file));
}

/** Relative imports of a shipped file that land outside src/ and connectors/ (test support, bench, scripts). */
function importsOutsideShipped(file: string): string[] {
  const source = readFileSync(join(ROOT, file), 'utf8');
  const specifiers = [...source.matchAll(/\bfrom\s+'(\.[^']+)'|\bimport\(\s*'(\.[^']+)'\s*\)/g)].map(
    (match) => match[1] ?? match[2] ?? '',
  );
  return specifiers
    .map((specifier) => relative(ROOT, resolve(ROOT, dirname(file), specifier)))
    .filter((target) => !target.startsWith('src/') && !target.startsWith('connectors/'));
}

describe('what the build and the release compile', () => {
  const lists = { build: buildFiles(), release: shippedSources() };

  for (const [name, files] of Object.entries(lists)) {
    it(`holds the connectors but no emulator or other test support (${name})`, () => {
      expect(files).toContain('connectors/odata/connector.ts');
      expect(files).toContain('src/cli/main.ts');
      expect(files.filter((file) => /emulator/i.test(file) || file.startsWith('test/'))).toEqual([]);
    });
  }

  it('has no shipped file importing test support', () => {
    const outside = shippedSources().flatMap((file) =>
      importsOutsideShipped(file).map((to) => `${file} -> ${to}`),
    );
    expect(outside).toEqual([]);
  });
});
