/**
 * What a job holds back, as every message says it: how many, their lines and ILS total, the documents by their own
 * numbers, why, and the fix when it is known (the same sentence `dead-letters list` and the status page give).
 */
import { sumMoney } from '../shared/decimal.js';
import { missingMappingFix } from '../shared/missing-mapping.js';
import type { NewDeadLetters, NotificationSources } from '../state/index.js';

/** An amount as the books show it: "ILS 12,345.60". */
export function ilsText(amount: string): string {
  const [whole = '0', cents = '00'] = amount.replace(/^-/, '').split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `ILS ${amount.startsWith('-') ? '-' : ''}${grouped}.${cents}`;
}

/** " (12 lines, ILS 4,250.00)" for journal documents, else nothing. */
function linesText(lines: number, total: string | null): string {
  return lines > 0 ? ` (${lines} lines${total === null ? '' : `, ${ilsText(total)}`})` : '';
}

/** "3 record(s)" or, for journal documents, "3 record(s) (12 lines, ILS 4,250.00)". */
export function heldBackAmount(count: number, lines: number, total: string | null): string {
  return `${count} record(s)${linesText(lines, total)}`;
}

/** One reason records are held back: how many and how much, why, which, and the fix when it is known. */
export function heldBackGroup(group: NewDeadLetters, configFile: string, job: string): string {
  const line =
    `${group.count} × ${group.reason}${linesText(group.lines, group.total)} ` +
    `(for example ${group.examples.join(', ')})`;
  if (group.missing === null) return line;
  return `${line}. To fix: ${missingMappingFix(group.missing, configFile, job)}.`;
}

/** The lines a problem message adds about what the job holds back now; none when it holds nothing. */
export function heldBackLines(sources: NotificationSources, job: string, configFile: string): string[] {
  const groups = sources.deadLettersSince(job, 0, true);
  if (groups.length === 0) return [];
  const count = groups.reduce((sum, group) => sum + group.count, 0);
  const lines = groups.reduce((sum, group) => sum + group.lines, 0);
  const totals = groups.map((group) => group.total).filter((total): total is string => total !== null);
  const total = totals.length === 0 ? null : sumMoney(totals);
  return [
    `Waiting: ${heldBackAmount(count, lines, total)} held back. By reason:`,
    ...groups.map((group) => `- ${heldBackGroup(group, configFile, job)}`),
    `See them with: supply-sync dead-letters list --flow ${job}`,
  ];
}
