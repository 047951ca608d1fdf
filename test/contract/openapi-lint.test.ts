/**
 * docs/openapi.json checked by tools we did not write: Redocly CLI's recommended ruleset (no errors, no
 * warnings) and @seriousme/openapi-schema-validator (the official OpenAPI 3.1 JSON Schema).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { DOCUMENT_PATH, binScript, requireTool } from './openapi/tools.js';

const run = promisify(execFile);
const redocly = binScript('@redocly/cli', 'redocly');
const redoclyInstalled = requireTool('Redocly CLI (@redocly/cli)', redocly);

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; message: string; location?: { pointer?: string }[] }[];
}

describe('docs/openapi.json under independent OpenAPI checkers', () => {
  it('is a valid OpenAPI 3.1 document for @seriousme/openapi-schema-validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(
      JSON.parse(readFileSync(DOCUMENT_PATH, 'utf8')) as Record<string, unknown>,
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it.runIf(redoclyInstalled)(
    'lints clean with Redocly CLI (recommended rules)',
    async () => {
      let stdout = '';
      try {
        ({ stdout } = await run(process.execPath, [redocly ?? '', 'lint', DOCUMENT_PATH, '--format=json'], {
          env: {
            ...process.env,
            REDOCLY_TELEMETRY: 'off',
            REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
            NO_COLOR: '1',
          },
          maxBuffer: 32 * 1024 * 1024,
          // Below the test's own timeout, so a hung linter is killed and reported rather than left running.
          timeout: 50_000,
          killSignal: 'SIGKILL',
        }));
      } catch (error) {
        // A lint error exits non-zero; its JSON report is still on stdout.
        stdout = (error as { stdout?: string }).stdout ?? String(error);
      }
      const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as LintReport;
      const problems = report.problems.map(
        (p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? ''}`,
      );
      expect(problems).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    },
    60_000,
  );
});
