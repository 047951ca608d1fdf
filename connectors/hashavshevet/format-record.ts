/** Formats one movement as a fixed-width record of single-byte characters, following the layout. */
import { toSharedHebrew } from './encoding.js';
import {
  AMOUNT_WIDTH,
  MAX_AMOUNT_AGOROT,
  formatDate,
  type DateFormat,
  type FieldName,
  type RecordLayout,
} from './layout.js';
import type { Movement } from './records.js';
import type { ReferenceResolver } from './references.js';

export interface RecordOptions {
  readonly dateFormat: DateFormat;
  readonly charMap: Readonly<Record<string, string>>;
  /** Cut details longer than the field, or refuse them. */
  readonly detailsOverflow: 'truncate' | 'refuse';
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
    details: text(head.description, 'details'),
  };
  movement.debits.forEach((slot, i) => {
    values[i === 0 ? 'debit_account_1' : 'debit_account_2'] = text(slot.account, 'debit account');
    values[i === 0 ? 'debit_amount_1' : 'debit_amount_2'] = formatAmount(slot.amount);
  });
  movement.credits.forEach((slot, i) => {
    values[i === 0 ? 'credit_account_1' : 'credit_account_2'] = text(slot.account, 'credit account');
    values[i === 0 ? 'credit_amount_1' : 'credit_amount_2'] = formatAmount(slot.amount);
  });
  let record = '';
  for (const field of layout.fields) {
    if (field.width === 0) continue;
    let value = values[field.name] ?? '';
    if (value.length > field.width) {
      if (field.name === 'details' && options.detailsOverflow === 'truncate') {
        value = value.slice(0, field.width);
      } else {
        throw new RecordFormatError(
          `${where}: ${field.name} "${value}" is longer than its ${field.width} characters`,
        );
      }
    }
    const alignRight = field.kind === 'number' || field.kind === 'amount';
    record += alignRight ? value.padStart(field.width, ' ') : value.padEnd(field.width, ' ');
  }
  if (record.length !== layout.recordLength) {
    throw new RecordFormatError(
      `record length ${record.length} differs from the layout's ${layout.recordLength}`,
    );
  }
  return record;
}
