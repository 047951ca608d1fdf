/**
 * The function-length limit of eslint.config.js, run by ESLint's own engine with the project's config on functions
 * of a known length given virtual paths in the repository: 60 lines pass in src and connectors, 61 do not, and
 * tests are not held to it.
 */
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const RULE = 'max-lines-per-function';
const eslint = new ESLint({ cwd: ROOT });

/** A function spanning exactly `lines` lines, from its signature to its closing brace. */
function functionOf(lines: number): string {
  const body = Array.from({ length: lines - 2 }, (_, index) => `  total += ${index};`);
  return [
    'export function long(total: number): number {',
    ...body.slice(0, -1),
    '  return total;',
    '}',
    '',
  ].join('\n');
}

async function lengthMessages(file: string, text: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, file) });
  return (result?.messages ?? [])
    .filter((message) => message.ruleId === RULE)
    .map((message) => message.message);
}

describe('max-lines-per-function', () => {
  it('builds the synthetic functions at the length they claim', () => {
    expect(functionOf(60).trimEnd().split('\n')).toHaveLength(60);
    expect(functionOf(61).trimEnd().split('\n')).toHaveLength(61);
  });

  for (const file of ['src/engine/long.ts', 'connectors/sql/long.ts', 'src/cli/commands/long.ts']) {
    it(`lets a 60-line function pass in ${file}`, async () => {
      expect(await lengthMessages(file, functionOf(60))).toEqual([]);
    });

    it(`refuses a 61-line function in ${file}`, async () => {
      expect(await lengthMessages(file, functionOf(61))).toEqual([
        "Function 'long' has too many lines (61). Maximum allowed is 60.",
      ]);
    });
  }

  it('counts blank lines and comments', async () => {
    const text = functionOf(61).replace('  total += 0;', '').replace('  total += 1;', '  // a comment');
    expect(await lengthMessages('src/engine/long.ts', text)).toHaveLength(1);
  });

  it('leaves tests, bench and scripts free', async () => {
    for (const file of ['test/engine/long.test.ts', 'bench/long.ts', 'scripts/long.ts']) {
      expect(await lengthMessages(file, functionOf(61)), file).toEqual([]);
    }
  });
});
