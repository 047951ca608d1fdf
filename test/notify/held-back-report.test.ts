/**
 * What the accountant is told about documents held back for a missing mapping, from a real journal export: the
 * sandbox over HTTP, a SQLite state file and a Hashavshevet folder. Each document's dead letter names its own line,
 * so the report and the dead-letter message group by the value and table the flow filed with it (not by the reason
 * text) and say what to add where.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { movementTotals, readPublishedImport } from '../connectors/hashavshevet/published-reader.js';
import { parseConfig, type JobConfig, type NotificationsConfig } from '../../src/config/index.js';
import { createJournalExportJob, journalExportOptionsSchema } from '../../src/flows/journal-export/index.js';
import { Notifier } from '../../src/notify/index.js';
import { jobContext, sandboxLines, startHarness, type Harness } from '../flows/journal-export/harness.js';

const CONFIG_FILE = '/etc/supply-sync/config.yaml';
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const NOTIFICATIONS = parseConfig(
  CONFIG_FILE,
  `api:
  sandbox: embedded
jobs:
  journal:
    flow: sales-push
notifications:
  instance: office
  channels:
    accountant:
      type: webhook
      url: https://hooks.example.com/x
  rules:
    - events: [dead_letters]
      channels: [accountant]
  daily_report:
    at: "00:00"
    channels: [accountant]
`,
).config.notifications as NotificationsConfig;

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await (h as Harness | undefined)?.close();
});

describe('documents held back for a missing mapping', () => {
  it('are grouped by the missing value in the daily report and the dead-letter message, with the fix', async () => {
    await h.sandbox.control.action('approve_journal_lines', { count: 12 });
    const approved = (await sandboxLines(h.sandbox)).filter((line) => line.status === 'approved_for_export');
    const accountsOf = (doc: string) =>
      new Set(
        approved
          .filter((l) => l.document_id === doc)
          .flatMap((l) => [l.account, ...(l.counter_account === null ? [] : [l.counter_account])]),
      );
    const documents = [...new Set(approved.map((l) => l.document_id))];
    const allAccounts = [...new Set(documents.flatMap((d) => [...accountsOf(d)]))].sort();
    // An account that two or more documents use, but not all: those are held back, the rest is exported.
    const missing = allAccounts.find((account) => {
      const users = documents.filter((d) => accountsOf(d).has(account)).length;
      return users >= 2 && users < documents.length;
    });
    expect(missing, `accounts ${allAccounts.join(', ')}`).toBeDefined();
    const account = missing ?? '';
    const heldDocs = documents.filter((d) => accountsOf(d).has(account));
    const table = Object.fromEntries(allAccounts.filter((a) => a !== account).map((a) => [a, `G${a}`]));

    const notifier = new Notifier({
      state: h.state,
      config: NOTIFICATIONS,
      origin: { instance: 'office', config: CONFIG_FILE },
      timezone: 'Asia/Jerusalem',
      jobs: new Map([['journal', { flow: 'journal-export', connector: 'books' } as unknown as JobConfig]]),
      watchingSince: Date.now(),
      scrub: (text) => text,
    });
    notifier.derive(Date.now()); // notes where runs and dead letters stand

    const job = createJournalExportJob({
      name: 'journal',
      connectorName: 'books',
      api: h.api,
      writer: h.writer,
      options: journalExportOptionsSchema.parse({ mappings: { accounts: 'gl' } }),
      mappings: { gl: table },
    });
    const runId = h.state.runs.start('journal', 'schedule');
    const result = await job.run(jobContext(h.state));
    h.state.runs.finish(runId, result.outcome, result.counts, null);
    expect(result.counts['dead_lettered']).toBe(heldDocs.length);
    // Each letter names its own line: the reason text alone would never group them.
    const reasons = new Set(h.state.deadLetters.list({ flow: 'journal' }).map((letter) => letter.reason));
    expect(reasons.size).toBe(heldDocs.length);

    const summary = `${heldDocs.length} × accounts value "${account}" has no entry in mappings.gl`;
    // The whole fix, the reload included, is the same in the dead-letter message and in the report.
    const fix =
      `To fix: add ${account} under mappings.gl in ${CONFIG_FILE}, ` +
      'then run `supply-sync config reload`; the next run exports them.';

    notifier.derive(Date.now());
    const told = h.state.notifications.list().find((n) => n.event === 'dead_letters');
    const toldText = (JSON.parse(told?.message ?? '{}') as { text?: string }).text ?? '';
    // The documents by their own numbers, with their lines and ILS total: never the API's internal ids.
    const grouped = new RegExp(
      `${escape(summary)} \\(\\d+ lines, ILS [\\d,]+\\.\\d\\d\\) \\(for example ([^)]+)\\)`,
    );
    const examples = grouped.exec(toldText)?.[1]?.split(', ') ?? [];
    const numbers = new Set(
      approved.filter((l) => heldDocs.includes(l.document_id)).map((l) => l.document_number),
    );
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(numbers.has(example), example).toBe(true);
    expect(toldText).not.toMatch(/doc_[0-9a-z]{6}/);
    expect(toldText).toContain(`). ${fix}\n`);

    // A second run exports nothing new: the report counts each document and line once, whatever the runs did.
    const again = h.state.runs.start('journal', 'schedule');
    const second = await job.run(jobContext(h.state));
    h.state.runs.finish(again, second.outcome, second.counts, null);

    // The report of the local day after the run (due at its midnight) covers the run.
    expect(notifier.dailyReport(Date.now() + 86_400_000)).toBe(1);
    const report = h.state.notifications.list().find((n) => n.event === 'daily_report');
    const { text, html } = JSON.parse(report?.message ?? '{}') as { text: string; html: string };
    const heldLines = text.split('\n').filter((line) => line.includes('Held back:'));
    expect(heldLines).toHaveLength(1);
    expect(heldLines[0]).toMatch(new RegExp(`  - Held back: ${escape(summary)} \\(\\d+ lines, ILS `));
    expect(heldLines[0]?.endsWith(fix)).toBe(true);
    expect(text).toContain(`Still waiting: ${heldDocs.length} record(s) (`);

    // The same documents, lines and ILS total as the Hashavshevet files written, and the files by name.
    const files = readdirSync(h.importDir).filter((name) => name.toUpperCase().endsWith('.DOC'));
    expect(files.length).toBeGreaterThan(0);
    let debit = 0n;
    const references = new Set<string>();
    for (const file of files) {
      const prm = readdirSync(h.importDir).find((name) => /\.prm$/i.test(name)) ?? '';
      const { movements } = readPublishedImport(join(h.importDir, prm), join(h.importDir, file));
      debit += movementTotals(movements).debit;
      for (const movement of movements) references.add(movement.reference1);
    }
    const nowExported = new Set(
      (await sandboxLines(h.sandbox)).filter((line) => line.status === 'exported').map((line) => line.id),
    );
    const exported = approved.filter((line) => nowExported.has(line.id));
    const shekels = `${debit / 100n}`.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    const agorot = `${debit % 100n}`.padStart(2, '0');
    expect(text).toContain(
      `  - Written to books: ${references.size} document(s), ${exported.length} line(s), total ILS ${shekels}.${agorot}`,
    );
    for (const file of files) expect(text).toContain(file);
    const escaped = summary.replaceAll('"', '&#34;');
    expect(html).toContain(`<li>Held back: ${escaped}`);
    expect(html).toContain(`${fix}</li>`);
  }, 60_000);
});
