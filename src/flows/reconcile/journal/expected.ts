/**
 * What the books should hold by the API's account: the lines the API lists as exported, read period by period,
 * turned into entries by the export job's own mapping (accounts, references, value dates), so they are compared
 * with the books as the export wrote them.
 */
import type { ApiClient } from '../../../client/index.js';
import type { JournalLine } from '../../../contract/index.js';
import type { JournalReadBack } from '../../../connector-contract/index.js';
import {
  GroupMapper,
  groupByDocument,
  type JournalExportOptions,
  type MappingTables,
} from '../../shared/journal-mapping/index.js';
import type { Scope } from '../scope.js';

export type JournalApi = { readonly accounting: Pick<ApiClient['accounting'], 'journalLines' | 'getExport'> };

/** One expected entry, with the API line it comes from. */
export interface ExpectedPosting {
  readonly lineId: string;
  readonly exportBatchId: string | null;
  readonly documentNumber: string;
  readonly side: 'debit' | 'credit';
  readonly account: string;
  readonly amount: string;
  readonly date: string;
  readonly valueDate: string;
  readonly period: string;
  /** As the books write it; null when the target cannot tell (a reference its rule never numbered). */
  readonly reference: string | null;
}

export interface ExpectedBooks {
  readonly postings: readonly ExpectedPosting[];
  readonly exportedLines: number;
  /** Lines exported by another client or to another target label: not expected in these books. */
  readonly otherTargets: ReadonlyMap<string, number>;
  /** Documents the mapping refuses, and API items that could not be read: compared with nothing. */
  readonly unmapped: readonly {
    readonly documentNumber: string;
    readonly lineIds: readonly string[];
    readonly reason: string;
  }[];
  readonly unreadableItems: number;
}

const PAGE_SIZE = 200;

export async function expectedBooks(
  api: JournalApi,
  scope: Scope,
  mapping: {
    readonly options: JournalExportOptions;
    readonly tables: MappingTables;
    readonly target: string;
  },
  readBack: JournalReadBack,
): Promise<ExpectedBooks> {
  const listed = await exportedLines(api, scope, mapping.options.branch_ids);
  const { unreadableItems } = listed;
  const { lines, batchLabels, otherTargets } = await ofTarget(api, listed.lines, mapping.target);
  const mapper = new GroupMapper(mapping.options, mapping.tables);
  const postings: ExpectedPosting[] = [];
  const unmapped: ExpectedBooks['unmapped'][number][] = [];
  const references = new Map<string, string | null>();
  const batchOf = new Map(
    lines.map((line) => [line.id, batchLabels.get(line.export_batch_id ?? '') ?? null]),
  );
  for (const group of groupByDocument(lines)) {
    const mapped = mapper.map(group);
    const documentNumber = group.lines[0]?.document_number ?? group.documentId;
    if (!mapped.ok) {
      unmapped.push({ documentNumber, lineIds: group.lines.map((line) => line.id), reason: mapped.reason });
      continue;
    }
    for (const entry of mapped.entries) {
      const lineId = entry.sourceIds[0] ?? '';
      if (!references.has(entry.reference))
        references.set(entry.reference, await readBack.bookReference(entry.reference));
      postings.push({
        lineId,
        exportBatchId: batchOf.get(lineId) ?? null,
        documentNumber,
        side: entry.side,
        account: entry.account,
        amount: entry.amount,
        date: entry.date,
        valueDate: entry.valueDate,
        period: entry.period,
        reference: references.get(entry.reference) ?? null,
      });
    }
  }
  return { postings, exportedLines: lines.length, otherTargets, unmapped, unreadableItems };
}

/** Every line the API lists as exported in the scope's periods (and the export job's branches), once each. */
async function exportedLines(
  api: JournalApi,
  scope: Scope,
  branchIds: readonly string[] | undefined,
): Promise<{ lines: JournalLine[]; unreadableItems: number }> {
  const byId = new Map<string, JournalLine>();
  let unreadableItems = 0;
  for (const period of scope.periods) {
    for (const branch of branchIds ?? [undefined]) {
      const pages = api.accounting
        .journalLines({
          status: 'exported',
          period,
          limit: PAGE_SIZE,
          ...(branch === undefined ? {} : { branch_id: branch }),
        })
        .pages();
      for await (const page of pages) {
        unreadableItems += page.quarantined.length;
        for (const line of page.items) if (line.status === 'exported') byId.set(line.id, line);
      }
    }
  }
  return { lines: [...byId.values()], unreadableItems };
}

/**
 * The lines exported to this target: the journal export labels its export calls with the job's target (by default
 * the connector's name) and its batch key as external_ref. Lines another client or target exported are counted
 * by target instead. Each export batch is read once.
 */
async function ofTarget(
  api: JournalApi,
  lines: readonly JournalLine[],
  target: string,
): Promise<{ lines: JournalLine[]; batchLabels: Map<string, string>; otherTargets: Map<string, number> }> {
  const batchTarget = new Map<string, string>();
  const batchLabels = new Map<string, string>();
  for (const id of new Set(lines.map((line) => line.export_batch_id ?? ''))) {
    if (id === '') continue;
    const batch = await api.accounting.getExport(id);
    batchTarget.set(id, batch.target ?? '(no target)');
    batchLabels.set(id, batch.external_ref ? `${id} (${batch.external_ref})` : id);
  }
  const ours: JournalLine[] = [];
  const otherTargets = new Map<string, number>();
  for (const line of lines) {
    const label = batchTarget.get(line.export_batch_id ?? '') ?? '(no export batch)';
    if (label === target) ours.push(line);
    else otherTargets.set(label, (otherTargets.get(label) ?? 0) + 1);
  }
  return { lines: ours, batchLabels, otherTargets };
}
