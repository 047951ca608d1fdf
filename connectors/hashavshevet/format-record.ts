/**
 * Formats one movement as a fixed-width record of single-byte characters, field by field from the layout table.
 * A value wider than its field is refused with the field's PRM line and name, never cut (details may be cut only
 * when the connector config asks for it).
 */
import type { JournalEntry } from '../../src/connector-contract/journal.js';
import { toSharedHebrew } from '../../src/kit/single-byte-hebrew.js';
import type { CostingCodeSource } from './config.js';
import {
  AMOUNT_WIDTH,
  MAX_AMOUNT_AGOROT,
  formatDate,
  type DateFormat,
  type FieldName,
  type PlacedField,
  type RecordLayout,
} from './layout.js';
import type { Movement } from './records.js';
import type { ReferenceResolver } from './references.js';
import { inDirection, type TextDirection } from './text-direction.js';

export interface RecordOptions {
  readonly dateFormat: DateFormat;
  readonly charMap: Readonly<Record<string, string>>;
  /** Cut details longer than the field, or refuse them. */
  readonly detailsOverflow: 'truncate' | 'refuse';
  readonly costingCode: CostingCodeSource;
  readonly costingCodeMap: Readonly<Record<string, string>> | undefined;
  readonly vatNumber: 'none' | 'vendor_tax_id';
  readonly textDirection: TextDirection;
}

export class RecordFormatError extends Error {}

export function formatAmount(agorot: bigint): string {
  if (agorot < 0n || agorot > MAX_AMOUNT_AGOROT) {
    throw new RecordFormatError(`amount ${agorot} agorot does not fit the 9.2 amount field`);
  }
  const whole = agorot / 100n;
  const cents = (agorot % 100n).toString().padStart(2, '0');
  return `${whole}.${cents}`.padStart(AMOUNT_WIDTH, ' ');
}

const DEBIT_SLOTS = [
  ['debit_account_1', 'debit_amount_1'],
  ['debit_account_2', 'debit_amount_2'],
] as const;
const CREDIT_SLOTS = [
  ['credit_account_1', 'credit_amount_1'],
  ['credit_account_2', 'credit_amount_2'],
] as const;

export function formatMovement(
  movement: Movement,
  layout: RecordLayout,
  options: RecordOptions,
  references: ReferenceResolver,
): string {
  const head = movement.head;
  const where = `line ${head.lineNumber} (reference ${head.reference})`;
  const text = (value: string, field: string) => toSharedHebrew(value, options.charMap, `${where}, ${field}`);
  const values: Partial<Record<FieldName, string>> = {
    movement_type: text(head.movementType ?? '', 'movement type'),
    reference: references.resolve(head.reference, 'reference'),
    reference2: head.reference2 === null ? '' : references.resolve(head.reference2, 'reference2'),
    reference_date: formatDate(head.date, options.dateFormat),
    value_date: formatDate(head.valueDate, options.dateFormat),
    costing_code: text(costingCode(head, options), 'costing code'),
    details: text(head.description, 'details'),
    vat_number: options.vatNumber === 'none' ? '' : vatNumber(head, where),
  };
  placeSlots(movement.debits, DEBIT_SLOTS, values, (account) => text(account, 'debit account'));
  placeSlots(movement.credits, CREDIT_SLOTS, values, (account) => text(account, 'credit account'));
  let record = '';
  for (const field of layout.fields) {
    record += placeValue(field, values[field.name] ?? '', options, where);
  }
  if (record.length !== layout.recordLength) {
    throw new RecordFormatError(
      `record length ${record.length} differs from the layout's ${layout.recordLength}`,
    );
  }
  return record;
}

/** Accounts and amounts of one side into its two slots (a movement never has more: records.ts packs them). */
function placeSlots(
  slots: Movement['debits'],
  fields: typeof DEBIT_SLOTS | typeof CREDIT_SLOTS,
  values: Partial<Record<FieldName, string>>,
  text: (account: string) => string,
): void {
  slots.forEach((slot, i) => {
    const names = fields[i];
    if (names === undefined)
      throw new RecordFormatError(`a movement has ${slots.length} accounts on one side`);
    values[names[0]] = text(slot.account);
    values[names[1]] = formatAmount(slot.amount);
  });
}

/** The value padded to its field: text to the left, digits and amounts to the right. */
function placeValue(field: PlacedField, raw: string, options: RecordOptions, where: string): string {
  let value = raw;
  if (value.length > field.width) {
    if (field.name === 'details' && options.detailsOverflow === 'truncate') {
      value = value.slice(0, field.width);
    } else {
      throw new RecordFormatError(
        `${where}: ${field.label} (PRM line ${field.line}) "${value}" is ${value.length} characters; ` +
          `the importer reads at most ${field.width}${field.name === 'details' ? ' (details_overflow: truncate cuts it)' : ''}`,
      );
    }
  }
  if (field.kind === 'text') return inDirection(value, options.textDirection).padEnd(field.width, ' ');
  return value.padStart(field.width, ' ');
}

/** The costing code for line 7: the branch or purchase type, through costing_code_map when one is given. */
function costingCode(entry: JournalEntry, options: RecordOptions): string {
  if (options.costingCode === 'none') return '';
  const key =
    options.costingCode === 'branch'
      ? (entry.branchCode ?? entry.branchId ?? null)
      : (entry.purchaseType ?? null);
  if (key === null || key === '') return '';
  if (options.costingCodeMap === undefined) return key;
  const code = options.costingCodeMap[key];
  if (code === undefined) {
    throw new RecordFormatError(
      `${options.costingCode === 'branch' ? 'branch' : 'purchase type'} "${key}" has no entry in the ` +
        `connector's costing_code_map`,
    );
  }
  return code;
}

/** The counterparty's VAT registration number for line 29: nine digits at most, blank when the API has none. */
function vatNumber(entry: JournalEntry, where: string): string {
  const taxId = (entry.vendorTaxId ?? '').trim();
  if (taxId !== '' && !/^\d+$/.test(taxId)) {
    throw new RecordFormatError(
      `${where}: counterparty's VAT registration number (PRM line 29) "${taxId}" is not digits`,
    );
  }
  return taxId;
}
