/**
 * The demo (`npm start`) writes Hashavshevet files with config/demo.yaml's `books` connector and `journal` job:
 * those exact settings, run against the sandbox, must produce files the reader written from the published PRM
 * line table accepts, holding exactly the lines the sandbox reports as exported.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/index.js';
import { defaultDemoConfigPath } from '../../../src/daemon/start/demo.js';
import { buildPluginRegistry } from '../../../src/daemon/plugins/builtin.js';
import { journalExportFlow, type JournalExportOptions } from '../../../src/flows/journal-export/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import { expectBooksMatchLines, hashavshevetTotals } from './targets.js';
import { jobContext, sandboxExportBatches, sandboxLines, startHarness, type Harness } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the demo's Hashavshevet output", () => {
  it('reads back with the published reader and matches the lines the sandbox marked exported', async () => {
    const registry = buildPluginRegistry();
    const { config } = loadConfig(defaultDemoConfigPath(), { registry });
    const { type, ...books } = config.connectors['books'] ?? {};
    const journal = config.jobs['journal'];
    expect(type).toBe('hashavshevet');
    expect(journal?.connector).toBe('books');

    h = await startHarness();
    const harness = h;
    const importDir = join(harness.dir, 'demo-books');
    // The demo's own connector settings; only the folder moves into this test's temporary directory.
    const connector = await registry.createConnector(
      String(type),
      { ...books, import_dir: importDir },
      { name: 'books', baseDir: harness.dir },
    );
    await harness.sandbox.control.action('approve_journal_lines', { count: 40 });
    // The flow as the daemon builds it, handed the options the config loader parsed.
    const job = journalExportFlow.create(
      { name: 'journal', connector: 'books', options: journal?.options as JournalExportOptions },
      {
        api: harness.api,
        connector: () => connector,
        state: harness.state,
        mappings: config.mappings,
        logger: pino({ level: 'silent' }),
        clock: systemClock,
        workDir: harness.dir,
      },
    );
    const run = await job.run(jobContext(harness.state));
    expect(run.outcome, run.error).toBe('ok');
    expect(run.counts['dead_lettered'] ?? 0).toBe(0);

    const ours = new Set(
      (await sandboxExportBatches(harness.sandbox))
        .filter((batch) => batch.external_ref?.startsWith('je-'))
        .map((batch) => batch.id),
    );
    const exported = (await sandboxLines(harness.sandbox)).filter((line) =>
      ours.has(line.export_batch_id ?? ''),
    );
    expect(exported.length).toBeGreaterThanOrEqual(40);
    expect(run.counts['lines_exported']).toBe(exported.length);
    const totals = hashavshevetTotals(importDir);
    expect(totals.files.length).toBeGreaterThan(0);
    expectBooksMatchLines(totals, exported, { references: 'sequence' });
    await connector.close();
  });
});
