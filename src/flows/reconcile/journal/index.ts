/** `reconcile journal`: the lines the API lists as exported against the books of the export job's target. Reads only. */
import type { JournalReadBack } from '../../../connector-contract/index.js';
import type { JournalExportOptions, MappingTables } from '../../shared/journal-mapping/index.js';
import type { ReconcileReport } from '../report.js';
import type { Scope } from '../scope.js';
import { compareJournal } from './compare.js';
import { expectedBooks, type JournalApi } from './expected.js';

export interface JournalReconcileInput {
  readonly api: JournalApi;
  readonly readBack: JournalReadBack;
  readonly mapping: { readonly options: JournalExportOptions; readonly tables: MappingTables };
  readonly scope: Scope;
  readonly target: { readonly connector: string; readonly type: string };
}

export async function reconcileJournal(input: JournalReconcileInput): Promise<ReconcileReport> {
  const books = await input.readBack.readBooks();
  const target = input.mapping.options.target ?? input.target.connector;
  const expected = await expectedBooks(input.api, input.scope, { ...input.mapping, target }, input.readBack);
  return {
    check: 'journal',
    scope: input.scope.label,
    target: { ...input.target, sources: books.sources },
    ...compareJournal(expected, books, input.scope),
  };
}

export type { JournalApi } from './expected.js';
