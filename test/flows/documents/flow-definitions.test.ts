/** The documents and catalog flows through the daemon's seam: defineFlow definitions built with FlowDeps. */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { simulateErpActivity } from '../../../connectors/sql/demo-erp/index.js';
import type { FlowDeps } from '../../../src/plugin/index.js';
import { catalogFlow } from '../../../src/flows/catalog/index.js';
import { documentsFlow } from '../../../src/flows/documents/index.js';
import { systemClock } from '../../../src/shared/clock.js';
import {
  jobContext,
  mulberry32,
  sandboxDocuments,
  startSupplierHarness,
  type SupplierHarness,
} from './supplier-harness.js';

let h: SupplierHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

function deps(harness: SupplierHarness, mappings: FlowDeps['mappings'] = {}): FlowDeps {
  return {
    api: harness.api,
    connector(name) {
      if (name !== 'erp') throw new Error(`no connector named ${name}`);
      return harness.connector;
    },
    state: harness.state,
    mappings,
    logger: pino({ level: 'silent' }),
    clock: systemClock,
    workDir: harness.dir,
  };
}

describe('flow definitions', () => {
  it('declare the supplier side, scopes, trigger events and option defaults', () => {
    expect(documentsFlow.side).toBe('supplier');
    expect(documentsFlow.triggerEvents).toEqual([
      'document.received',
      'document.disputed',
      'document.approved_for_export',
    ]);
    expect(documentsFlow.scopes).toContain('supplier.documents:write');
    expect(documentsFlow.options.parse({})).toMatchObject({ mark_sent: true, reactions_scope: 'sent' });
    expect(catalogFlow.side).toBe('supplier');
    expect(catalogFlow.options.parse({})).toMatchObject({
      max_delete_share: 0.2,
      allow_empty_snapshot: false,
    });
    expect(() => catalogFlow.options.parse({ max_delete_share: 2 })).toThrow();
    expect(() => documentsFlow.options.parse({ unknown_option: true })).toThrow();
  });

  it('need a connector', async () => {
    const harness = await startSupplierHarness();
    h = harness;
    const options = documentsFlow.options.parse({});
    expect(() => documentsFlow.create({ name: 'docs', options }, deps(harness))).toThrow(
      /jobs\.docs\.connector is required/,
    );
  });

  it('build jobs that run against the configured connector', async () => {
    h = await startSupplierHarness();
    const [number] = (
      await simulateErpActivity(h.erp, {
        clock: systemClock,
        random: mulberry32(2),
        documents: 1,
        confirmations: 0,
        catalogChanges: 0,
      })
    ).documents;
    const documents = documentsFlow.create(
      { name: 'docs', connector: 'erp', options: documentsFlow.options.parse({}) },
      deps(h),
    );
    const sent = await documents.run(jobContext(h.state));
    expect(sent.counts['documents_created']).toBe(1);
    expect((await sandboxDocuments(h.sandbox)).documents.some((doc) => doc.number === number)).toBe(true);

    // The price list mapping may also come from the config's mapping tables (API id -> ERP code).
    const catalog = catalogFlow.create(
      { name: 'catalog', connector: 'erp', options: catalogFlow.options.parse({}) },
      deps(h, { price_lists: { pl_standard: 'PL-STD' } }),
    );
    const synced = await catalog.run(jobContext(h.state));
    expect(synced.outcome).toBe('ok');
    expect(synced.counts['products_upserted']).toBe(351);
    expect(synced.counts['prices_put']).toBe(351);
  });
});
