import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ApiClient } from '../../../src/client/index.js';
import type { Connector } from '../../../src/connector-contract/index.js';
import {
  JOURNAL_EXPORT_EVENT_TYPES,
  JOURNAL_EXPORT_SCOPES,
  journalExportFlow,
} from '../../../src/flows/journal-export/index.js';
import { PluginRegistry, type FlowDeps } from '../../../src/plugin/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import type { StateStore } from '../../../src/state/index.js';
import { hashavshevetConnectorDefinition } from '../../../connectors/hashavshevet/index.js';

/** Building a job touches neither the API nor the state store; a run would. */
function deps(connectors: Record<string, Connector>): FlowDeps {
  return {
    api: {} as ApiClient,
    connector(name) {
      const connector = connectors[name];
      if (connector === undefined) throw new Error(`no connector named ${name}`);
      return connector;
    },
    state: {} as StateStore,
    mappings: {},
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    workDir: tmpdir(),
  };
}

describe('journal-export wiring', () => {
  it('declares its options schema, scopes and the capability it requires, and rejects unknown option keys', () => {
    const flow = new PluginRegistry([journalExportFlow]).flow('journal-export');
    expect(flow?.scopes).toEqual([...JOURNAL_EXPORT_SCOPES]);
    expect(flow?.requires).toEqual(['accountingWriter']);
    expect(() => flow?.options.parse({ max_lines_per_bacth: 10 })).toThrow(/max_lines_per_bacth/);
    expect(() => flow?.options.parse({ period: '2026-13' })).toThrow(/YYYY-MM/);
    expect(JOURNAL_EXPORT_EVENT_TYPES).toEqual(['journal_lines.approved_for_export']);
  });

  it('builds the job from a config block and a live connector, naming what is missing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'journal-wiring-'));
    try {
      const books = await new PluginRegistry([hashavshevetConnectorDefinition]).createConnector(
        'hashavshevet',
        { import_dir: 'imports' },
        { name: 'books', baseDir: dir },
      );
      const options = journalExportFlow.options.parse({ max_lines_per_batch: 100 });
      const job = journalExportFlow.create({ name: 'journal', connector: 'books', options }, deps({ books }));
      expect(job.name).toBe('journal');
      expect(() => journalExportFlow.create({ name: 'journal', options }, deps({ books }))).toThrow(
        /jobs\.journal\.connector is required: the journal-export flow/,
      );
      const erp: Connector = {
        type: 'sql',
        capabilities: {},
        check: () => Promise.resolve([]),
        close: () => Promise.resolve(),
      };
      expect(() =>
        journalExportFlow.create({ name: 'journal', connector: 'erp', options }, deps({ erp })),
      ).toThrow(
        'jobs.journal.connector: connector "erp" (type sql) does not offer accountingWriter, which the journal-export flow requires',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
