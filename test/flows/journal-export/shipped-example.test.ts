/**
 * config/accountant-journal.yaml on day one: its description fits Hashavshevet's 50-character details field for
 * every journal line the sandbox approves, without repeating the document, and it says which mapping to add.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DESCRIPTION_FIELDS } from '../../../src/flows/journal-export/index.js';
import { compileTemplate } from '../../../src/flows/shared/journal-mapping/template.js';
import { sandboxLines, startHarness, type Harness } from './harness.js';

const EXAMPLE = join(import.meta.dirname, '../../../config/accountant-journal.yaml');
/** The widest details field of the targets the example's comments offer (Hashavshevet, line 9 of the PRM). */
const DETAILS_WIDTH = 50;

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await (h as Harness | undefined)?.close();
});

describe('the accountant journal example', () => {
  it('describes every approved line in at most 50 characters, naming its document once', async () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    const config = parse(text) as { jobs: { journal: { options: { description_template: string } } } };
    const describeLine = compileTemplate(
      config.jobs.journal.options.description_template,
      DESCRIPTION_FIELDS,
    );
    await h.sandbox.control.action('approve_journal_lines', { count: 25 });
    const lines = (await sandboxLines(h.sandbox)).filter((line) => line.status === 'approved_for_export');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const fields = line as unknown as Record<string, string | null>;
      const details = describeLine(fields);
      expect(details.length, details).toBeLessThanOrEqual(DETAILS_WIDTH);
      const number = fields['document_number'] ?? '';
      expect(details.split(number).length - 1, details).toBeLessThanOrEqual(1);
    }
    // The example maps two accounts only: it tells the user to add theirs.
    expect(text).toMatch(/# Add every account code and branch id your API lines use/);
  });
});
