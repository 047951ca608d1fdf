/**
 * What a person recognises in a held-back record: the document's own number (an invoice number, not an internal
 * id), and for journal documents their lines and their total (the debit side, in ILS: the books' currency).
 */
import { isMoney, sumMoney } from './decimal.js';

interface RecordLine {
  readonly side?: unknown;
  readonly amount?: unknown;
  readonly document_number?: unknown;
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 ? value : null;

/**
 * The number people know a held-back record by, else its key without the internal prefix. A record that wraps what
 * the API sent (an order as listed: `{ kind, order }`) is named by that order's number, with its id beside it for
 * `dead-letters` commands.
 */
export function heldBackLabel(recordKey: string, record: unknown): string {
  const fields = (record ?? {}) as Record<string, unknown>;
  const lines = Array.isArray(fields['lines']) ? (fields['lines'] as RecordLine[]) : [];
  const number =
    text(lines[0]?.document_number) ??
    text(fields['document_number']) ??
    text(fields['number']) ??
    text(fields['file']);
  if (number !== null) return number;
  const wrapped = text(wrappedOrder(fields)?.['number']);
  if (wrapped !== null) return wrapped === recordKey ? wrapped : `${wrapped} (${recordKey})`;
  return recordKey.replace(/^(document|line):/, '');
}

function wrappedOrder(fields: Record<string, unknown>): Record<string, unknown> | null {
  const order = fields['order'];
  return order !== null && typeof order === 'object' && !Array.isArray(order)
    ? (order as Record<string, unknown>)
    : null;
}

/** The journal lines a held-back record carries and their debit total (null when it carries no lines). */
export function heldBackMoney(record: unknown): { lines: number; total: string | null } {
  const fields = (record ?? {}) as Record<string, unknown>;
  const lines = Array.isArray(fields['lines']) ? (fields['lines'] as RecordLine[]) : [];
  const debits = lines.filter((line) => line.side === 'debit' && isMoney(line.amount));
  return {
    lines: lines.length,
    total: lines.length === 0 ? null : sumMoney(debits.map((line) => line.amount as string)),
  };
}
