/**
 * The scheduled reconciliations, as job kinds: `reconcile` compares the journal the API exported with the books of
 * its connector, `reconcile-orders` the API's orders with the ERP. Each reads only; a run that finds a difference
 * ends `failed`, its error naming how many and of which kinds: run history, `supply-sync status` and the status
 * page show it, and readiness too once the job's `freshness` passes without a matching run. Like the CLI's
 * `reconcile`, a job reads the API through a view of the daemon's client that refuses every write before it is sent.
 */
import * as z from 'zod';
import { readOnlyApiClient, type ApiClient } from '../../client/index.js';
import { duration } from '../../config/index.js';
import { journalExportOptionsSchema } from '../shared/journal-mapping/index.js';
import { defineFlow, jobConnector } from '../../plugin/index.js';
import type { RunResult } from '../../engine/index.js';
import type { Clock } from '../../shared/clock.js';
import { reconcileJournal } from './journal/index.js';
import { compareOrders } from './orders/compare.js';
import type { ReconcileReport } from './report.js';
import { parseScope } from './scope.js';

const journalOptions = z.strictObject({
  period: z
    .union([z.enum(['previous_month', 'current_month']), z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/)])
    .default('previous_month')
    .meta({ description: 'The accounting period to reconcile: previous_month, current_month or YYYY-MM' }),
  export_options: journalExportOptionsSchema.default(journalExportOptionsSchema.parse({})).meta({
    description:
      "The journal-export job's options (its mapping, reference and value-date rules, target label), so the " +
      "lines are compared as that job wrote them; a YAML anchor on that job's options repeats them here",
  }),
});

const ordersOptions = z.strictObject({
  since: duration()
    .default(7 * 86_400_000)
    .meta({ description: 'Orders changed in the API within this time', examples: ['7d'] }),
  orders_job: z
    .string()
    .min(1)
    .default('orders')
    .meta({ description: 'The orders job whose record of written orders is consulted (its name in jobs:)' }),
  start_from: z.iso
    .datetime({ offset: true })
    .nullable()
    .default(null)
    .meta({ description: "The orders job's start_from" }),
  skip_acknowledged_elsewhere: z
    .boolean()
    .default(true)
    .meta({ description: "The orders job's skip_acknowledged_elsewhere" }),
});

/** The daemon's client as a reconcile job may use it: reads only. */
function readingOnly(api: ApiClient, job: string): ApiClient {
  return readOnlyApiClient(
    api,
    `job ${job} reconciles and reads only: a request that changes data was stopped`,
  );
}

/** YYYY-MM of the month `offset` months from now, in UTC. */
function monthOf(clock: Clock, offset: number): string {
  const now = new Date(clock.now());
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1)).toISOString().slice(0, 7);
}

export function runResult(report: ReconcileReport): RunResult {
  const counts = { ...report.counts };
  if (report.differences.length === 0) return { outcome: 'ok', counts };
  const byKind = new Map<string, number>();
  for (const d of report.differences) byKind.set(d.kind, (byKind.get(d.kind) ?? 0) + 1);
  const kinds = [...byKind].map(([kind, n]) => `${n} ${kind}`).join(', ');
  return {
    outcome: 'failed',
    counts,
    error: `${report.differences.length} difference(s), ${report.scope}: ${kinds}; run \`supply-sync reconcile ${report.check}\` for the list and what to do`,
  };
}

export const reconcileJournalFlow = defineFlow({
  flow: 'reconcile',
  description: 'the journal lines the API exported against the books of the connector (reads only)',
  side: 'buyer',
  scopes: ['buyer.accounting:read'],
  requires: ['accountingWriter'],
  triggerEvents: [],
  options: journalOptions,
  create(job, deps) {
    const books = jobConnector('reconcile', job, deps);
    const readBack = books.require('accountingWriter').readBack;
    const api = readingOnly(deps.api, job.name);
    if (readBack === undefined) {
      throw new Error(
        `jobs.${job.name}.connector: connector ${books.name} cannot read its books back, so it cannot be reconciled`,
      );
    }
    return {
      name: job.name,
      async run(ctx) {
        const { period } = job.options;
        const month =
          period === 'previous_month'
            ? monthOf(ctx.clock, -1)
            : period === 'current_month'
              ? monthOf(ctx.clock, 0)
              : period;
        const report = await reconcileJournal({
          api,
          readBack,
          mapping: { options: job.options.export_options, tables: deps.mappings },
          scope: parseScope({ period: month }),
          target: { connector: books.name, type: deps.connector(books.name).type },
        });
        ctx.logger[report.differences.length === 0 ? 'info' : 'warn'](
          { counts: report.counts },
          'journal reconciled',
        );
        return runResult(report);
      },
    };
  },
});

export const reconcileOrdersFlow = defineFlow({
  flow: 'reconcile-orders',
  description: "the API's orders against the ERP, and each acknowledgement's ERP number (reads only)",
  side: 'supplier',
  scopes: ['supplier.orders:read'],
  requires: ['orderSink'],
  triggerEvents: [],
  options: ordersOptions,
  create(job, deps) {
    const erp = jobConnector('reconcile-orders', job, deps);
    const sink = erp.require('orderSink');
    const { options } = job;
    const api = readingOnly(deps.api, job.name);
    return {
      name: job.name,
      async run(ctx) {
        const since = new Date(ctx.clock.now() - options.since).toISOString();
        const compared = await compareOrders(
          api,
          sink,
          { since, label: `the last ${options.since} ms` },
          {
            startFrom: options.start_from,
            skipAcknowledgedElsewhere: options.skip_acknowledged_elsewhere,
            writtenAs: (orderId) =>
              ctx.state.ledger.get({
                flow: options.orders_job,
                connector: erp.name,
                recordKey: orderId,
                version: 'erp-order',
              })?.externalRef ?? null,
          },
        );
        const report: ReconcileReport = {
          check: 'orders',
          scope: `orders changed since ${since}`,
          target: { connector: erp.name, type: deps.connector(erp.name).type, sources: [] },
          ...compared,
        };
        ctx.logger[report.differences.length === 0 ? 'info' : 'warn'](
          { counts: report.counts },
          'orders reconciled',
        );
        return runResult(report);
      },
    };
  },
});
