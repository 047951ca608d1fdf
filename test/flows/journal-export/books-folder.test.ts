/**
 * A books folder supply-sync has written to and that is gone (renamed, a share not mounted), emptied, or whose
 * reference counter is behind what was already given out: the run fails naming the folder and import_dir, writes
 * nothing and marks nothing exported. A folder never written to is created on the first run.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AccountingWriter } from '../../../src/connector-contract/index.js';
import {
  createJournalExportJob,
  journalExportOptionsSchema,
} from '../../../src/flows/journal-export/index.js';
import { PluginRegistry } from '../../../src/plugin/index.js';
import { hashavshevetConnectorDefinition } from '../../../connectors/hashavshevet/index.js';
import { jobContext, sandboxLines, startHarness, type Harness } from './harness.js';

const COUNTER = 'supply-sync-references.json';

let h: Harness;
let configFile: string;
beforeEach(async () => {
  h = await startHarness();
  configFile = join(h.dir, 'west.yaml');
});
afterEach(async () => {
  await (h as Harness | undefined)?.close();
});

/** The journal job over a `hashavshevet` connector built as the daemon builds it, numbering by sequence. */
async function journalJob() {
  const connector = await new PluginRegistry([hashavshevetConnectorDefinition]).createConnector(
    'hashavshevet',
    { import_dir: 'books/west', long_references: 'sequence' },
    { name: 'books', baseDir: h.dir, configFile },
  );
  const writer = connector.capabilities.accountingWriter as AccountingWriter;
  return createJournalExportJob({
    name: 'journal',
    api: h.api,
    writer,
    connectorName: 'books',
    options: journalExportOptionsSchema.parse({}),
  });
}

async function approvedCount(): Promise<number> {
  return (await sandboxLines(h.sandbox)).filter((line) => line.status === 'approved_for_export').length;
}

function counterNext(folder: string): number {
  return (JSON.parse(readFileSync(join(folder, COUNTER), 'utf8')) as { next: number }).next;
}

describe('journal export into a books folder that is not the one written to before', () => {
  const books = () => join(h.dir, 'books', 'west');

  async function firstBatch(): Promise<number> {
    await h.sandbox.control.action('approve_journal_lines', { count: 10 });
    const first = await (await journalJob()).run(jobContext(h.state));
    expect(first.outcome, first.error).toBe('ok');
    await h.sandbox.control.action('approve_journal_lines', { count: 5 });
    return counterNext(books());
  }

  it('creates the folder and its counter on the first run of a new installation', async () => {
    expect(existsSync(books())).toBe(false);
    const next = await firstBatch();
    expect(next).toBeGreaterThan(1);
    expect(readdirSync(books()).filter((name) => name.endsWith('.DOC'))).toHaveLength(1);
    // A second run into the same folder goes on from its counter.
    const second = await (await journalJob()).run(jobContext(h.state));
    expect(second.outcome, second.error).toBe('ok');
    expect(counterNext(books())).toBeGreaterThan(next);
  });

  it('fails, writing nothing and marking nothing exported, when the folder was renamed away', async () => {
    await firstBatch();
    await rename(books(), `${books()}.gone`);
    const waiting = await approvedCount();
    expect(waiting).toBeGreaterThan(0);

    // The dry run says what the run would: it fails on the folder, before any preview.
    const dry = await (await journalJob()).run(jobContext(h.state, { dryRun: true }));
    expect(dry.outcome).toBe('failed');
    expect(dry.error).toContain(`${configFile}: connectors.books.import_dir`);
    expect(dry.error).toContain(`books folder ${books()} is missing`);
    expect(dry.counts['batches_previewed'] ?? 0).toBe(0);

    const run = await (await journalJob()).run(jobContext(h.state));
    expect(run.outcome).toBe('failed');
    expect(run.error).toContain(`${configFile}: connectors.books.import_dir`);
    expect(run.error).toContain(`books folder ${books()} is missing`);
    expect(run.error).toMatch(/mount the share or restore the folder/);
    expect(run.error).toMatch(/to start afresh on purpose/);
    expect(existsSync(books())).toBe(false);
    expect(await approvedCount()).toBe(waiting);
    expect(run.counts['lines_exported'] ?? 0).toBe(0);
  });

  it('fails when the folder is there but empty, as the mount point of a share that is not mounted', async () => {
    await firstBatch();
    await rename(books(), `${books()}.share`);
    await mkdir(books());
    const waiting = await approvedCount();

    const run = await (await journalJob()).run(jobContext(h.state));
    expect(run.outcome).toBe('failed');
    expect(run.error).toContain(`${configFile}: connectors.books.import_dir`);
    expect(run.error).toContain(`has no ${COUNTER}`);
    expect(readdirSync(books())).toEqual([]);
    expect(await approvedCount()).toBe(waiting);
  });

  it('fails when the counter is behind the references already given out (an older copy restored)', async () => {
    const next = await firstBatch();
    writeFileSync(join(books(), COUNTER), `${JSON.stringify({ next: 1, assigned: {} })}\n`);
    const waiting = await approvedCount();

    const run = await (await journalJob()).run(jobContext(h.state));
    expect(run.outcome).toBe('failed');
    expect(run.error).toContain(`next reference is 1`);
    expect(run.error).toContain(`"next": ${next}`);
    expect(readdirSync(books()).filter((name) => name.endsWith('.DOC'))).toHaveLength(1);
    expect(await approvedCount()).toBe(waiting);
    // Doing what the message says lets the next run go on, past every reference given out.
    writeFileSync(join(books(), COUNTER), `${JSON.stringify({ next, assigned: {} })}\n`);
    const again = await (await journalJob()).run(jobContext(h.state));
    expect(again.outcome, again.error).toBe('ok');
    expect(await approvedCount()).toBe(0);
  });
});
