/**
 * Compares what the API exported with what the books hold, per document, side and account: a target may merge a
 * document's entries on one account (Hashavshevet movements do) or keep them one per row, and the sums per account
 * agree either way. Unmatched sums are then paired within a document and side: the same amount on another account
 * is an account that differs; what stays unpaired is missing from the books, or in them without an export.
 */
import type { BookEntry, BookFields, BookRead } from '../../../connector-contract/index.js';
import { formatMoney, parseMoney } from '../../../shared/decimal.js';
import type { Difference, ReconcileReport, TotalRow } from '../report.js';
import { ScopeError, type Scope } from '../scope.js';
import { ACTIONS } from './actions.js';
import type { ExpectedBooks, ExpectedPosting } from './expected.js';

type ScopeField = 'period' | 'valueDate' | 'date';

/** Postings of one document, side and account, summed. */
interface Sum {
  readonly document: string;
  readonly side: 'debit' | 'credit';
  readonly account: string;
  amount: bigint;
  readonly dates: Set<string>;
  readonly ids: Set<string>;
  readonly batches: Set<string>;
  readonly where: string[];
}

export type JournalComparison = Pick<
  ReconcileReport,
  'counts' | 'matched' | 'totals' | 'notes' | 'differences'
>;

export function compareJournal(expected: ExpectedBooks, books: BookRead, scope: Scope): JournalComparison {
  const field = scopeField(books.fields, scope);
  const dateField = books.fields.date ? 'date' : books.fields.valueDate ? 'valueDate' : null;
  const postings = expected.postings.filter((p) => inScope(p[field], field, scope));
  const entries = books.entries.filter((e) => inScope(e[field], field, scope));
  const api = sumApi(postings, books.fields, dateField);
  const matching = matchSums(api, sumBooks(entries, books.fields, dateField));
  const names = documentNames(postings);
  const differences = [
    ...cannotCompare(expected),
    ...matching.differences,
    ...unbalancedRecords(books, entries),
  ].map((found) => ({ ...found, document: names.get(found.document) ?? found.document }));
  const totals = totalsOf(postings, books, field, scope);
  return {
    counts: {
      api_lines_exported: expected.exportedLines,
      api_postings: api.size,
      books_entries: entries.length,
      matched: matching.sums,
      differences: differences.length,
    },
    matched: [
      `${matching.sums} of ${api.size} document/account sums match (${formatMoney(matching.amount)} ILS)`,
      ...totalsSummary(totals),
      ...[...expected.otherTargets].map(
        ([target, n]) => `${n} line(s) exported to another target (${target}): not expected in these books`,
      ),
    ],
    totals,
    notes: [...notesFor(books.fields, field), ...(books.notes ?? [])],
    differences,
  };
}

/** The API's sums against the books' (each books sum used once): matched ones counted, the rest differences. */
function matchSums(
  api: ReadonlyMap<string, Sum>,
  booked: Map<string, Sum>,
): { sums: number; amount: bigint; differences: Difference[] } {
  const differences: Difference[] = [];
  let sums = 0;
  let amount = 0n;
  const unmatchedApi: Sum[] = [];
  for (const [key, sum] of api) {
    const inBooks = booked.get(key);
    if (inBooks === undefined) {
      unmatchedApi.push(sum);
      continue;
    }
    booked.delete(key);
    const found = compareSums(sum, inBooks);
    if (found.length === 0) {
      sums += 1;
      amount += sum.amount;
    }
    differences.push(...found);
  }
  differences.push(...pairLeftovers(unmatchedApi, [...booked.values()]));
  return { sums, amount, differences };
}

/**
 * The API's document number of each reference as the books keep it (Hashavshevet keeps the digits of BULK-1091,
 * or a sequence number): a difference names the document a person can look up, the invoice, not the digits.
 */
function documentNames(postings: readonly ExpectedPosting[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const posting of postings) {
    if (posting.reference !== null) names.set(posting.reference, posting.documentNumber);
  }
  return names;
}

/** Each record of the books in scope that does not balance on its own is a difference of its own. */
function unbalancedRecords(books: BookRead, inScope: readonly BookEntry[]): Difference[] {
  const locations = new Set(inScope.map((entry) => entry.location));
  return (books.unbalanced ?? [])
    .filter((record) => locations.has(record.location))
    .map((record) => ({
      kind: 'unbalanced_in_books',
      document: record.reference ?? '',
      side: '',
      account: '',
      apiValue: '',
      booksValue: '',
      apiIds: [],
      batchIds: [],
      where: [record.location],
      detail: record.detail,
      action: ACTIONS.unbalanced_in_books,
    }));
}

function scopeField(fields: BookFields, scope: Scope): ScopeField {
  const order: ScopeField[] =
    scope.period !== null ? ['period', 'valueDate', 'date'] : ['date', 'valueDate', 'period'];
  const found = order.find((name) => fields[name]);
  if (found === undefined) {
    throw new ScopeError(
      'the books keep no date, value date or period, so their entries cannot be placed in a period: map one of them',
    );
  }
  return found;
}

/** An entry whose scope field is empty is kept: better reported than hidden. */
function inScope(value: string | null, field: ScopeField, scope: Scope): boolean {
  if (value === null || value === '') return true;
  if (field === 'period') {
    return scope.period !== null
      ? value === scope.period
      : value >= scope.from.slice(0, 7) && value <= scope.to.slice(0, 7);
  }
  return value >= scope.from && value <= scope.to;
}

function keyOf(document: string, side: string, account: string): string {
  return `${document}\u0000${side}\u0000${account}`;
}

function sumFor(sums: Map<string, Sum>, document: string, side: 'debit' | 'credit', account: string): Sum {
  const key = keyOf(document, side, account);
  let sum = sums.get(key);
  if (sum === undefined) {
    sum = {
      document,
      side,
      account,
      amount: 0n,
      dates: new Set(),
      ids: new Set(),
      batches: new Set(),
      where: [],
    };
    sums.set(key, sum);
  }
  return sum;
}

function sumApi(
  postings: readonly ExpectedPosting[],
  fields: BookFields,
  dateField: 'date' | 'valueDate' | null,
): Map<string, Sum> {
  const sums = new Map<string, Sum>();
  for (const posting of postings) {
    const document = fields.reference ? (posting.reference ?? `? (${posting.documentNumber})`) : '';
    const sum = sumFor(sums, document, posting.side, posting.account);
    sum.amount += parseMoney(posting.amount);
    if (dateField !== null) sum.dates.add(posting[dateField]);
    sum.ids.add(posting.lineId);
    if (posting.exportBatchId !== null) sum.batches.add(posting.exportBatchId);
    sum.where.push(`document ${posting.documentNumber}`);
  }
  return sums;
}

function sumBooks(
  entries: readonly BookEntry[],
  fields: BookFields,
  dateField: 'date' | 'valueDate' | null,
): Map<string, Sum> {
  const sums = new Map<string, Sum>();
  for (const entry of entries) {
    const sum = sumFor(sums, fields.reference ? (entry.reference ?? '') : '', entry.side, entry.account);
    sum.amount += parseMoney(entry.amount);
    const date = dateField === null ? null : entry[dateField];
    if (date !== null) sum.dates.add(date);
    for (const id of entry.sourceIds ?? []) sum.ids.add(id);
    if (entry.batchKey !== null) sum.batches.add(entry.batchKey);
    sum.where.push(entry.location);
  }
  return sums;
}

function difference(
  kind: Difference['kind'],
  api: Sum | null,
  books: Sum | null,
  detail: string,
): Difference {
  const present = api ?? books;
  if (present === null) throw new Error(`a ${kind} difference needs the API's sum or the books' sum`);
  return {
    kind,
    document: present.document,
    side: present.side,
    account:
      kind === 'account_differs' ? `${api?.account ?? ''} -> ${books?.account ?? ''}` : present.account,
    apiValue: api === null ? '' : formatMoney(api.amount),
    booksValue: books === null ? '' : formatMoney(books.amount),
    apiIds: api === null ? [...(books?.ids ?? [])] : [...api.ids],
    batchIds: api === null ? [] : [...api.batches],
    where: books === null ? [] : dedupe(books.where),
    detail,
    action: ACTIONS[kind],
  };
}

function compareSums(api: Sum, books: Sum): Difference[] {
  if (api.amount !== books.amount) {
    const twice = api.amount > 0n && books.amount % api.amount === 0n && books.amount > api.amount;
    return twice
      ? [difference('present_twice', api, books, `the books hold it ${books.amount / api.amount} times`)]
      : [
          difference(
            'amount_differs',
            api,
            books,
            `API ${formatMoney(api.amount)}, books ${formatMoney(books.amount)}`,
          ),
        ];
  }
  const apiDates = [...api.dates].sort().join(', ');
  const bookDates = [...books.dates].sort().join(', ');
  if (apiDates !== bookDates) {
    return [
      {
        ...difference('date_differs', api, books, `API date ${apiDates}, books ${bookDates}`),
        apiValue: apiDates,
        booksValue: bookDates,
      },
    ];
  }
  return [];
}

/** Sums found on one side only: the same amount on another account of the same document and side is paired. */
function pairLeftovers(api: readonly Sum[], books: Sum[]): Difference[] {
  const differences: Difference[] = [];
  for (const sum of api) {
    const index = books.findIndex(
      (b) => b.document === sum.document && b.side === sum.side && b.amount === sum.amount,
    );
    const other = index < 0 ? undefined : books.splice(index, 1)[0];
    differences.push(
      other === undefined
        ? difference('missing_in_books', sum, null, `${sum.ids.size} exported line(s) not found in the books`)
        : difference('account_differs', sum, other, `API account ${sum.account}, books ${other.account}`),
    );
  }
  for (const sum of books) {
    differences.push(
      difference('not_exported_by_api', null, sum, 'no line the API lists as exported in this scope'),
    );
  }
  return differences;
}

function cannotCompare(expected: ExpectedBooks): Difference[] {
  const rows: Difference[] = expected.unmapped.map((group) => ({
    kind: 'cannot_compare',
    document: group.documentNumber,
    side: '',
    account: '',
    apiValue: '',
    booksValue: '',
    apiIds: group.lineIds,
    batchIds: [],
    where: [],
    detail: `the export mapping refuses this document: ${group.reason}`,
    action: ACTIONS.cannot_compare,
  }));
  if (expected.unreadableItems > 0) {
    rows.push({
      kind: 'cannot_compare',
      document: '',
      side: '',
      account: '',
      apiValue: '',
      booksValue: '',
      apiIds: [],
      batchIds: [],
      where: [],
      detail: `${expected.unreadableItems} journal line(s) from the API could not be read (the log names them)`,
      action: ACTIONS.cannot_compare,
    });
  }
  return rows;
}

function totalsOf(
  postings: readonly ExpectedPosting[],
  books: BookRead,
  field: ScopeField,
  scope: Scope,
): NonNullable<ReconcileReport['totals']> {
  const accounts = new Map<string, [bigint, bigint, bigint, bigint]>();
  const documents = new Map<string, [bigint, bigint, bigint, bigint]>();
  const add = (map: typeof accounts, key: string, column: number, amount: bigint) => {
    const row = map.get(key) ?? [0n, 0n, 0n, 0n];
    row[column] = (row[column] ?? 0n) + amount;
    map.set(key, row);
  };
  for (const p of postings) {
    const column = p.side === 'debit' ? 0 : 1;
    add(accounts, p.account, column, parseMoney(p.amount));
    if (books.fields.reference)
      add(documents, p.reference ?? `? (${p.documentNumber})`, column, parseMoney(p.amount));
  }
  for (const e of books.entries.filter((entry) => inScope(entry[field], field, scope))) {
    const column = e.side === 'debit' ? 2 : 3;
    add(accounts, e.account, column, parseMoney(e.amount));
    if (books.fields.reference) add(documents, e.reference ?? '', column, parseMoney(e.amount));
  }
  return { accounts: totalRows(accounts), documents: totalRows(documents) };
}

function totalRows(map: Map<string, [bigint, bigint, bigint, bigint]>): TotalRow[] {
  return [...map.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, [apiDebit, apiCredit, booksDebit, booksCredit]]) => ({
      key,
      apiDebit: formatMoney(apiDebit),
      apiCredit: formatMoney(apiCredit),
      booksDebit: formatMoney(booksDebit),
      booksCredit: formatMoney(booksCredit),
      matches: apiDebit === booksDebit && apiCredit === booksCredit,
    }));
}

function totalsSummary(totals: NonNullable<ReconcileReport['totals']>): string[] {
  const matching = (rows: readonly TotalRow[]) => rows.filter((row) => row.matches).length;
  const lines = [
    `${matching(totals.accounts)} of ${totals.accounts.length} accounts total the same in the API and the books`,
  ];
  if (totals.documents.length > 0) {
    lines.push(
      `${matching(totals.documents)} of ${totals.documents.length} documents total the same in the API and the books`,
    );
  }
  return lines;
}

function notesFor(fields: BookFields, field: ScopeField): string[] {
  const notes = [`entries are placed in the scope by their ${field === 'valueDate' ? 'value date' : field}`];
  if (!fields.reference) notes.push('the books keep no reference: compared per account, not per document');
  if (!fields.date && !fields.valueDate) notes.push('the books keep no date: dates are not compared');
  return notes;
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}
