/**
 * The office's morning report: one table of every company for the 24 hours up to the report's time, read from each
 * company's own state: the journal lines written to its books and their ILS total (from the batches written, each
 * line once however many runs it took), what is still held back, the runs that failed, and the companies whose jobs
 * did not run at all or that are not running. The companies that need a look come first.
 */
import type { JobConfig } from '../config/index.js';
import { sumMoney } from '../shared/decimal.js';
import { NotificationSources, writtenBatchesBetween, type StateStore } from '../state/index.js';
import { reportWindow } from './daily-report.js';
import { ilsText } from './held-back.js';
import { escapeHtml, localTime, originLine, zonedTime } from './message.js';
import type { MessageOrigin, NotificationMessage } from './message.js';

/** One company as the office holds it: its state and jobs while it runs, else why it does not. */
export interface ReportedCompany {
  readonly name: string;
  readonly running: { readonly state: StateStore; readonly jobs: ReadonlyMap<string, JobConfig> } | null;
  /** Why it is not running (its start failed, its file has a mistake); null while it runs. */
  readonly problem: string | null;
}

export interface CompanyNight {
  readonly company: string;
  readonly problem: string | null;
  readonly runs: number;
  readonly failedRuns: number;
  readonly linesExported: number;
  readonly exportedIls: string;
  readonly heldBack: number;
  readonly heldBackIls: string;
}

export function companyNight(company: ReportedCompany, window: { from: number; to: number }): CompanyNight {
  const empty = {
    runs: 0,
    failedRuns: 0,
    linesExported: 0,
    exportedIls: '0.00',
    heldBack: 0,
    heldBackIls: '0.00',
  };
  if (company.running === null)
    return { company: company.name, problem: company.problem ?? 'not running', ...empty };
  const { state, jobs } = company.running;
  const sources = new NotificationSources(state.db);
  let runs = 0;
  let failedRuns = 0;
  const exported: string[] = [];
  let linesExported = 0;
  let heldBack = 0;
  const held: string[] = [];
  // Each books connector once, however many journal jobs write to it.
  const books = new Set(
    [...jobs.values()].flatMap((job) =>
      job.flow === 'journal-export' && job.connector !== undefined ? [job.connector] : [],
    ),
  );
  for (const connector of books) {
    for (const batch of writtenBatchesBetween(state.kv, connector, window.from, window.to)) {
      linesExported += batch.rows;
      exported.push(batch.debits['ILS'] ?? '0.00');
    }
  }
  for (const name of jobs.keys()) {
    const done = sources.runsBetween(name, window.from, window.to);
    runs += done.length;
    failedRuns += done.filter((run) => run.outcome === 'failed').length;
    for (const group of sources.deadLettersSince(name, 0, true)) {
      heldBack += group.count;
      if (group.total !== null) held.push(group.total);
    }
  }
  return {
    company: company.name,
    problem: null,
    ...{ runs, failedRuns, linesExported, heldBack },
    exportedIls: sumMoney(exported),
    heldBackIls: sumMoney(held),
  };
}

/** What a row says in its last column; the order of the rows follows it. */
function verdict(night: CompanyNight): { rank: number; text: string } {
  if (night.problem !== null) return { rank: 0, text: `not running: ${night.problem}` };
  if (night.failedRuns > 0) return { rank: 1, text: `${night.failedRuns} run(s) failed` };
  if (night.runs === 0) return { rank: 2, text: 'not yet run' };
  if (night.heldBack > 0) return { rank: 3, text: 'records held back' };
  return { rank: 4, text: 'ok' };
}

const HEADINGS = [
  'Company',
  'Lines exported',
  'Exported (ILS)',
  'Held back',
  'Held back (ILS)',
  'Runs',
  'Failed',
  'State',
];

function cells(night: CompanyNight): string[] {
  return [
    night.company,
    String(night.linesExported),
    ilsText(night.exportedIls),
    String(night.heldBack),
    ilsText(night.heldBackIls),
    String(night.runs),
    String(night.failedRuns),
    verdict(night).text,
  ];
}

function textTable(rows: readonly string[][]): string {
  const widths = HEADINGS.map((heading, column) =>
    Math.max(heading.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(HEADINGS), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function htmlTable(rows: readonly string[][]): string {
  const head = HEADINGS.map((heading) => `<th>${escapeHtml(heading)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${row.map((cell) => `<td>${escapeHtml(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table border="1" cellpadding="4"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/** The report of `due` from each company's night (companyNight over reportWindow(due)). */
export function officeReport(
  companies: readonly CompanyNight[],
  due: number,
  timeZone: string,
  origin: MessageOrigin,
): NotificationMessage {
  const window = reportWindow(due);
  const nights = [...companies].sort(
    (a, b) => verdict(a).rank - verdict(b).rank || (a.company < b.company ? -1 : 1),
  );
  const rows = nights.map(cells);
  const count = (rank: number) => nights.filter((night) => verdict(night).rank === rank).length;
  const summary =
    `${nights.length} companies: ${nights.reduce((sum, night) => sum + night.linesExported, 0)} lines exported, ` +
    `${ilsText(sumMoney(nights.map((night) => night.exportedIls)))}; ${count(0)} not running, ` +
    `${count(1)} with failed runs, ${count(2)} not yet run, ${nights.filter((night) => night.heldBack > 0).length} with records held back`;
  const period = `${localTime(window.from, timeZone)} to ${localTime(due, timeZone)} (${timeZone})`;
  const text = [`Office report for ${period}`, summary, textTable(rows), originLine(origin)].join('\n\n');
  const html = [
    '<!doctype html><html><body>',
    `<h2>Office report</h2><p>${escapeHtml(period)}</p><p>${escapeHtml(summary)}</p>`,
    htmlTable(rows),
    `<p><small>${escapeHtml(originLine(origin))}</small></p>`,
    '</body></html>',
  ].join('\n');
  return {
    event: 'daily_report',
    severity: count(0) + count(1) + count(2) > 0 ? 'warning' : 'info',
    subject: `[supply-sync ${origin.instance}] Office report ${zonedTime(due, timeZone)}: ${summary}`,
    text: `${text}\n`,
    html: `${html}\n`,
  };
}
