import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SchemaRegistry } from '../../../src/config/index.js';
import { ConnectorRegistry, type Connector } from '../../../src/connectors/index.js';
import {
  JOURNAL_EXPORT_EVENT_TYPES,
  JOURNAL_EXPORT_SCOPES,
  journalExportJobFromConfig,
  registerJournalExportFlow,
  type JournalExportApi,
} from '../../../src/flows/journal-export/index.js';
import { hashavshevetConnectorDefinition } from '../../../connectors/hashavshevet/index.js';

const unusedApi = {} as JournalExportApi;

describe('journal-export wiring', () => {
  it('registers its options schema and scopes once, and rejects unknown option keys', () => {
    const registry = new SchemaRegistry();
    registerJournalExportFlow(registry);
    registerJournalExportFlow(registry);
    const flow = registry.flow('journal-export');
    expect(flow?.scopes).toEqual([...JOURNAL_EXPORT_SCOPES]);
    expect(() => flow?.options.parse({ max_lines_per_bacth: 10 })).toThrow(/max_lines_per_bacth/);
    expect(() => flow?.options.parse({ period: '2026-13' })).toThrow(/YYYY-MM/);
    expect(JOURNAL_EXPORT_EVENT_TYPES).toEqual(['journal_lines.approved_for_export']);
  });

  it('builds the job from a config block and a live connector, naming what is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'journal-wiring-'));
    try {
      const books = await new ConnectorRegistry()
        .register(hashavshevetConnectorDefinition)
        .create('hashavshevet', { import_dir: 'imports' }, { name: 'books', baseDir: dir });
      const job = journalExportJobFromConfig({
        name: 'journal',
        job: { connector: 'books', options: { max_lines_per_batch: 100 } },
        mappings: {},
        api: unusedApi,
        connector: () => books,
      });
      expect(job.name).toBe('journal');
      expect(() =>
        journalExportJobFromConfig({
          name: 'journal',
          job: {},
          mappings: {},
          api: unusedApi,
          connector: () => books,
        }),
      ).toThrow(/jobs\.journal\.connector/);
      const erp: Connector = {
        type: 'sql',
        capabilities: {},
        check: () => Promise.resolve([]),
        close: () => Promise.resolve(),
      };
      expect(() =>
        journalExportJobFromConfig({
          name: 'journal',
          job: { connector: 'erp' },
          mappings: {},
          api: unusedApi,
          connector: () => erp,
        }),
      ).toThrow(/does not offer accountingWriter/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
