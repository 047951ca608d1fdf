import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { odataConfigSchema, odataConnectorDefinition } from '../../../connectors/odata/index.js';
import { localDateTime } from '../../../connectors/odata/update-watermark.js';
import type { Connector } from '../../../src/connector-contract/index.js';
import { runJob } from '../../../src/engine/index.js';
import {
  createDocumentsJob,
  documentsOptionsSchema,
  type DocumentsApi,
} from '../../../src/flows/documents/index.js';
import { erpDocumentsStream } from '../../../src/flows/documents/job.js';
import { systemClock } from '../../../src/shared/clock.js';
import { openStateStore } from '../../../src/state/index.js';
import { parseFilter } from '../../support/odata-emulator/filter.js';
import { startOdataEmulator, type OdataEmulator } from '../../support/odata-emulator/index.js';
import { jobContext } from '../../flows/job-context.js';
import { blockFor, SAP_PASSWORD } from './fixture.js';
import { ODataOracle } from './oracle.js';

/**
 * The update-time bound of SAP document reads survives a restart: the documents flow keeps it as a cursor of its job
 * in the state file, so the first read after a restart asks only for documents changed since, not for every one.
 */
describe('odata documents: the update-time bound kept in the state across a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'odata-watermark-'));
  const stateFile = join(dir, 'state.db');
  let emulator: OdataEmulator | undefined;
  afterEach(async () => {
    await emulator?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const open = async (serviceUrl: string): Promise<Connector> =>
    odataConnectorDefinition.create(
      odataConfigSchema.parse(blockFor('sap-b1-service-layer', serviceUrl, { documents_from: '2026-01-01' })),
      { name: 'erp', baseDir: dir },
    );

  /** One run of the documents job on a freshly opened state file and connector, as a daemon after a restart. */
  const runOnce = async (serviceUrl: string) => {
    const state = openStateStore({ file: stateFile, clock: systemClock });
    const connector = await open(serviceUrl);
    try {
      const job = createDocumentsJob({
        name: 'docs',
        // An idle run sends nothing: the API is never called.
        api: {} as DocumentsApi,
        source: () => {
          const source = connector.capabilities.documentSource;
          if (source === undefined) throw new Error('no document source');
          return source;
        },
        reactionSink: () => undefined,
        connectorName: 'erp',
        options: documentsOptionsSchema.parse({ reactions: false }),
      });
      const result = await runJob(job, jobContext(state));
      return { result, saved: state.cursors.get(erpDocumentsStream('docs')) };
    } finally {
      await connector.close();
      state.close();
    }
  };

  it('asks only for documents changed since the saved bound on the first read after a restart', async () => {
    const oracle = new ODataOracle();
    emulator = await startOdataEmulator({
      erp: 'sap-b1-service-layer',
      users: { manager: SAP_PASSWORD },
      inspect: oracle.inspect,
    });
    const { store } = emulator;
    // Every seeded document was sent and marked an hour ago.
    store.clock = () => new Date(Date.now() - 3_600_000);
    for (const set of ['Invoices', 'DeliveryNotes'])
      for (const row of store.all(set))
        store.patch(
          set,
          { DocEntry: row['DocEntry'] },
          { U_ApiDocumentId: `doc_${String(row['DocEntry'])}@${set}(${String(row['DocEntry'])})` },
        );
    const invoiceFilters = () =>
      oracle.seen
        .filter((request) => request.target.startsWith('Invoices?'))
        .map((request) => new URL(request.target, 'http://service/').searchParams.get('$filter') ?? '');

    const startedAt = Date.now();
    const first = await runOnce(emulator.serviceUrl);
    expect(first.result.outcome).toBe('ok');
    expect(invoiceFilters()).toHaveLength(1);
    expect(invoiceFilters()[0]).not.toContain('UpdateDate');
    // The bound saved: the start of that complete read, 10 minutes back.
    const savedMs = first.saved?.watermarkMs ?? 0;
    expect(savedMs).toBeGreaterThanOrEqual(startedAt - 600_000 - 1_000);
    expect(savedMs).toBeLessThanOrEqual(Date.now() - 600_000 + 1_000);

    const second = await runOnce(emulator.serviceUrl);
    expect(second.result.outcome).toBe('ok');
    const [date, time] = localDateTime(new Date(savedMs), undefined);
    const filter = invoiceFilters()[1] ?? '';
    expect(filter).toContain(`(UpdateDate gt ${date} or (UpdateDate eq ${date} and UpdateTime ge ${time}))`);
    expect(store.all('Invoices').filter(parseFilter(filter, () => true))).toHaveLength(0);
    expect(second.saved?.watermarkMs).toBeGreaterThan(savedMs);
    expect(oracle.failures).toEqual([]);
  });
});
