/** A reconciliation report for a person (text), for scripts (JSON) and for a spreadsheet (CSV of differences). */
import { formatCsv } from '../../kit/csv.js';
import {
  DIFFERENCE_CSV_HEADER,
  differenceRow,
  type Difference,
  type ReconcileReport,
} from '../../flows/reconcile/index.js';

export function reportText(report: ReconcileReport): string[] {
  const { target } = report;
  const lines = [
    `reconcile ${report.check}, ${report.scope}: API against connector ${target.connector} (${target.type})`,
    `read: ${target.sources.length === 0 ? 'nothing (no books found)' : target.sources.join(', ')}`,
    ...report.notes.map((note) => `note: ${note}`),
    '',
    'matches:',
    ...report.matched.map((line) => `  ${line}`),
  ];
  const accounts = report.totals?.accounts ?? [];
  if (accounts.length > 0) {
    lines.push('', 'totals per account (API debit/credit | books debit/credit):');
    for (const row of accounts) {
      const mark = row.matches ? 'ok  ' : 'DIFF';
      lines.push(
        `  ${mark} ${row.key}: ${row.apiDebit}/${row.apiCredit} | ${row.booksDebit}/${row.booksCredit}`,
      );
    }
  }
  if (report.differences.length === 0) {
    lines.push('', 'everything matches: no differences');
    return lines;
  }
  lines.push('', `${report.differences.length} difference(s):`);
  report.differences.forEach((difference, i) => lines.push(...differenceText(difference, i + 1)));
  return lines;
}

function differenceText(difference: Difference, n: number): string[] {
  const what = [difference.document && `document ${difference.document}`, difference.side, difference.account]
    .filter((part) => part !== '')
    .join(' ');
  const lines = [`${n}. ${difference.kind}: ${what}: ${difference.detail}`];
  if (difference.apiIds.length > 0) lines.push(`   API: ${difference.apiIds.join(', ')}`);
  if (difference.batchIds.length > 0) lines.push(`   export batches: ${difference.batchIds.join(', ')}`);
  if (difference.where.length > 0) lines.push(`   in the books: ${difference.where.join('; ')}`);
  lines.push(`   what to do: ${difference.action}`);
  return lines;
}

export function differencesCsv(report: ReconcileReport): string {
  return formatCsv([[...DIFFERENCE_CSV_HEADER], ...report.differences.map(differenceRow)], ',');
}

/** JSON for scripts: the report as it is, with an outcome a script can test. */
export function reportJson(report: ReconcileReport): string {
  return JSON.stringify(
    { outcome: report.differences.length === 0 ? 'match' : 'differences', ...report },
    null,
    2,
  );
}
