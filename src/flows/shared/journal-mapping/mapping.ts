/**
 * From API journal lines to neutral journal entries: groups lines by document, checks each group balances in
 * exact decimals, and maps accounts, branches, movement types and descriptions through the configured tables.
 * A group that cannot go through yields a reason instead of entries.
 */
import type { JournalEntry } from '../../../connector-contract/journal.js';
import type { StagedLine } from './line.js';
import { formatMoney, parseMoney } from '../../../shared/decimal.js';
import { missingMappingReason, type MissingMapping } from '../../../shared/missing-mapping.js';
import { compileTemplate } from './template.js';
import { DESCRIPTION_FIELDS, type JournalExportOptions } from './options.js';

export type MappingTables = Readonly<Record<string, Readonly<Record<string, string>>>>;

export interface DocumentGroup {
  readonly documentId: string;
  /** Sorted: debit, vat, credit, then by id. */
  readonly lines: readonly StagedLine[];
}

/** Entries without line numbers: the batch numbers them when it is formed. */
export type GroupEntry = Omit<JournalEntry, 'lineNumber'>;

/** A copy of the entry at `lineNumber`. Spelled out, not spread: a spread copy costs about 1 µs an entry here. */
export function numberedEntry(entry: GroupEntry, lineNumber: number): JournalEntry {
  return {
    side: entry.side,
    account: entry.account,
    counterAccount: entry.counterAccount,
    amount: entry.amount,
    currency: entry.currency,
    date: entry.date,
    valueDate: entry.valueDate,
    period: entry.period,
    reference: entry.reference,
    reference2: entry.reference2,
    branchCode: entry.branchCode,
    movementType: entry.movementType,
    description: entry.description,
    branchId: entry.branchId ?? null,
    purchaseType: entry.purchaseType ?? null,
    vendorTaxId: entry.vendorTaxId ?? null,
    sourceIds: entry.sourceIds,
    lineNumber,
  };
}

export type MappedGroup =
  | { readonly ok: true; readonly group: DocumentGroup; readonly entries: readonly GroupEntry[] }
  | {
      readonly ok: false;
      readonly group: DocumentGroup;
      readonly reason: string;
      /** Set when a mapping table has no entry for a value: the first one, filed with the dead letter. */
      readonly missing?: MissingMapping;
      /** Every distinct value of the document its tables have no entry for, so one dry run can name them all. */
      readonly allMissing?: readonly MissingMapping[];
    };

const SIDE_ORDER: Record<string, number> = { debit: 0, vat: 1, credit: 2 };

export function groupByDocument(lines: Iterable<StagedLine>): DocumentGroup[] {
  const byDocument = new Map<string, StagedLine[]>();
  for (const line of lines) {
    const group = byDocument.get(line.document_id);
    if (group) group.push(line);
    else byDocument.set(line.document_id, [line]);
  }
  return [...byDocument.entries()]
    .map(([documentId, group]) => documentGroup(documentId, group))
    .sort(byDocumentDate);
}

/** One document's lines in entry order. */
export function documentGroup(documentId: string, lines: readonly StagedLine[]): DocumentGroup {
  return {
    documentId,
    lines: [...lines].sort(
      (a, b) => (SIDE_ORDER[a.side] ?? 3) - (SIDE_ORDER[b.side] ?? 3) || compare(a.id, b.id),
    ),
  };
}

function byDocumentDate(a: DocumentGroup, b: DocumentGroup): number {
  return (
    compare(a.lines[0]?.doc_date ?? '', b.lines[0]?.doc_date ?? '') || compare(a.documentId, b.documentId)
  );
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

class Unmappable extends Error {}

type TableKind = keyof JournalExportOptions['mappings'];

/** The tables the options name, by kind; throws naming the option and the table when one is not under `mappings:`. */
function namedTables(
  options: JournalExportOptions,
  tables: MappingTables,
): Record<TableKind, Readonly<Record<string, string>> | undefined> {
  const table = (kind: TableKind) => {
    const name = options.mappings[kind];
    if (name === undefined) return undefined;
    const found = tables[name];
    if (found === undefined) {
      throw new Error(
        `options.mappings.${kind} names the mapping table "${name}", which is not under mappings:`,
      );
    }
    return found;
  };
  return {
    accounts: table('accounts'),
    branches: table('branches'),
    movement_types: table('movement_types'),
  };
}

/**
 * Checks what a GroupMapper needs without making one: every table the options name is under `mappings:` and the
 * description template names known fields. Throws as the GroupMapper would.
 */
export function validateTables(options: JournalExportOptions, tables: MappingTables): void {
  compileTemplate(options.description_template, DESCRIPTION_FIELDS);
  namedTables(options, tables);
}

/** A line's amount as its entry carries it: positive, on the side a negative amount moves it to. */
interface SignedAmount {
  readonly side: 'debit' | 'credit';
  readonly amount: bigint;
}

export class GroupMapper {
  readonly #describe: ReturnType<typeof compileTemplate>;
  readonly #accounts: Readonly<Record<string, string>> | undefined;
  readonly #branches: Readonly<Record<string, string>> | undefined;
  readonly #movementTypes: Readonly<Record<string, string>> | undefined;
  readonly #reversed: ReadonlySet<string>;
  /** The values missing from the tables while one document is mapped, with the line each was first seen on. */
  #misses: { readonly missing: MissingMapping; readonly lineId: string }[] = [];

  /** Throws when the options name a mapping table the config does not have, or a template field that is unknown. */
  constructor(
    private readonly options: JournalExportOptions,
    tables: MappingTables,
  ) {
    this.#describe = compileTemplate(options.description_template, DESCRIPTION_FIELDS);
    const named = namedTables(options, tables);
    this.#accounts = named.accounts;
    this.#branches = named.branches;
    this.#movementTypes = named.movement_types;
    this.#reversed = new Set(options.reversed_document_types);
  }

  map(group: DocumentGroup): MappedGroup {
    this.#misses = [];
    try {
      // Balance first: it is a fact about the source, whatever the mapping tables say.
      const amounts = group.lines.map((line) => this.#signedAmount(line));
      checkBalance(amounts);
      const entries: GroupEntry[] = [];
      group.lines.forEach((line, i) => {
        const signed = amounts[i] ?? null;
        if (signed !== null) entries.push(this.#entry(line, signed));
      });
      const [first] = this.#misses;
      if (first === undefined) return { ok: true, group, entries };
      // The first miss is the reason, as it always was; the others are looked up too so none waits for a next round.
      const allMissing = this.#misses.map((miss) => miss.missing);
      const reason = missingMappingReason(first.missing, first.lineId);
      return { ok: false, group, reason, missing: first.missing, allMissing };
    } catch (error) {
      if (error instanceof Unmappable) return { ok: false, group, reason: error.message };
      throw error;
    }
  }

  /** The line's side and positive amount as an entry carries them; null for a zero amount (no entry). */
  #signedAmount(line: StagedLine): SignedAmount | null {
    const reversed = this.#reversed.has(line.document_type);
    let side: 'debit' | 'credit';
    if (line.side === 'debit') side = 'debit';
    else if (line.side === 'credit') side = 'credit';
    else if (line.side === 'vat') side = reversed ? 'credit' : 'debit';
    else throw new Unmappable(`line ${line.id} has side "${line.side}", which this version does not know`);
    if (line.currency !== 'ILS')
      throw new Unmappable(`line ${line.id} is in ${line.currency}; only ILS is supported`);
    const amount = parseMoney(line.amount);
    if (amount === 0n) return null;
    if (amount > 0n) return { side, amount };
    return { side: side === 'debit' ? 'credit' : 'debit', amount: -amount };
  }

  #entry(line: StagedLine, { side, amount }: SignedAmount): GroupEntry {
    const account = this.#account(line.account, line);
    const counter = line.counter_account ? this.#account(line.counter_account, line) : null;
    const branchCode =
      this.#branches === undefined ? null : this.#lookup(this.#branches, 'branches', line.branch_id, line);
    const reference = this.options.reference_from === 'reference' ? line.reference : line.document_number;
    return {
      side,
      account,
      counterAccount: counter,
      amount: formatMoney(amount),
      currency: line.currency,
      date: line.doc_date,
      valueDate: valueDate(line, this.options.value_date),
      period: line.accounting_period,
      reference,
      reference2: this.options.reference2_from === 'none' ? null : (line.allocation_number ?? null),
      branchCode,
      movementType: this.#movementType(line),
      description: this.#describe({
        description: line.description,
        document_number: line.document_number,
        document_type: line.document_type,
        reference: line.reference,
        allocation_number: line.allocation_number ?? null,
        vendor_id: line.vendor_id,
        vendor_tax_id: line.vendor_tax_id ?? null,
        branch_id: line.branch_id,
        branch_code: branchCode,
        account,
        side: line.side,
        source: line.source,
        period: line.accounting_period,
        doc_date: line.doc_date,
      }),
      branchId: line.branch_id,
      purchaseType: line.purchase_type ?? null,
      vendorTaxId: line.vendor_tax_id ?? null,
      sourceIds: [line.id],
    };
  }

  #account(apiAccount: string, line: StagedLine): string {
    return this.#accounts === undefined
      ? apiAccount
      : this.#lookup(this.#accounts, 'accounts', apiAccount, line);
  }

  #movementType(line: StagedLine): string | null {
    const key = line.movement_type_code ?? line.document_type;
    if (this.#movementTypes === undefined) return line.movement_type_code ?? null;
    const value = this.#movementTypes[key] ?? this.#movementTypes['*'];
    if (value === undefined) return this.#lookup(this.#movementTypes, 'movement_types', key, line);
    return value;
  }

  #lookup(table: Readonly<Record<string, string>>, kind: string, key: string, line: StagedLine): string {
    const value = table[key];
    if (value !== undefined) return value;
    const name = this.options.mappings[kind as keyof JournalExportOptions['mappings']] ?? kind;
    const seen = this.#misses.some(({ missing }) => missing.table === name && missing.key === key);
    if (!seen) this.#misses.push({ missing: { kind, table: name, key }, lineId: line.id });
    // Never written: a document with a miss is held back whole once all its lines are looked at.
    return '';
  }
}

function checkBalance(amounts: readonly (SignedAmount | null)[]): void {
  let debit = 0n;
  let credit = 0n;
  for (const signed of amounts) {
    if (signed === null) continue;
    if (signed.side === 'debit') debit += signed.amount;
    else credit += signed.amount;
  }
  if (debit !== credit) {
    throw new Unmappable(
      `does not balance: debit and VAT ${formatMoney(debit)}, credit ${formatMoney(credit)} ` +
        `(difference ${formatMoney(debit - credit)})`,
    );
  }
}

function valueDate(line: StagedLine, rule: JournalExportOptions['value_date']): string {
  const period = line.accounting_period;
  switch (rule) {
    case 'doc_date':
      return line.doc_date;
    case 'period_start':
      return `${period}-01`;
    case 'period_end':
      return periodEnd(period);
    case 'doc_date_in_period':
      return line.doc_date.startsWith(`${period}-`) ? line.doc_date : `${period}-01`;
  }
}

function periodEnd(period: string): string {
  const [year = 0, month = 1] = period.split('-').map(Number);
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return `${period}-${String(lastDay).padStart(2, '0')}`;
}
