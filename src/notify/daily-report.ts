/**
 * The daily report: per job, what the last 24 hours did (runs, what was exported or written and where) and what is
 * held back with the reason and its fix, as plain text and simple HTML, times in the configured time zone.
 */
import type { JobConfig } from '../config/index.js';
import { resolveWallTime, wallTimeAt } from '../scheduler/zoned-time.js';
import { sumMoney } from '../shared/decimal.js';
import {
  NotificationSources,
  writtenBatchesBetween,
  type FinishedRun,
  type NewDeadLetters,
  type StateStore,
  type WrittenBatch,
} from '../state/index.js';
import type { KeyValueStore } from '../state/kv.js';
import { heldBackAmount, heldBackGroup, ilsText } from './held-back.js';
import { describeRunError } from './run-error.js';
import {
  escapeHtml,
  localTime,
  zonedTime,
  originLine,
  type MessageOrigin,
  type NotificationMessage,
} from './message.js';

const DAY_MS = 86_400_000;

/** Words for the counts flows report; a count without any is shown by its own name, underscores as spaces. */
const COUNT_LABELS: Record<string, string> = {
  lines_exported: 'journal lines exported',
  batches_written: 'batches (files) written',
  dead_lettered: 'records held back',
  deadLettered: 'records held back',
  files_uploaded: 'files uploaded',
  fetched: 'records read',
  products_changed: 'catalog changes: products',
  prices_changed: 'catalog changes: prices',
  availability_changed: 'catalog changes: availability',
  products_removed: 'catalog changes: products removed',
  documents_failed: 'documents not sent yet (retried next run)',
  documents_pending: 'documents waiting to be sent',
};

/** Pulling flows count what they delivered; for the orders flow that is orders written to the ERP. */
function countLabel(flow: string, key: string): string {
  if (flow === 'orders' && key === 'delivered') return 'orders written to the ERP';
  const label = COUNT_LABELS[key];
  if (label !== undefined) return label;
  // documents_<how>: a document sent (created, or resumed after an interruption).
  if (flow === 'documents' && key.startsWith('documents_')) return `documents sent (${key.slice(10)})`;
  return key.replace(/_/g, ' ');
}

export interface ReportJob {
  readonly name: string;
  readonly config: JobConfig;
}

/** The 24 hours a report due at `due` covers. */
export function reportWindow(due: number): { from: number; to: number } {
  return { from: due - DAY_MS, to: due };
}

/** The instant the report of the local day holding `now` is due, and that day as YYYY-MM-DD. */
export function reportDue(now: number, at: string, timeZone: string): { due: number; day: string } {
  const wall = wallTimeAt(now, timeZone);
  const [hour = 0, minute = 0] = at.split(':').map(Number);
  const resolved = resolveWallTime(
    { year: wall.year, month: wall.month, day: wall.day, hour, minute },
    timeZone,
  );
  const due = resolved.instants[0] ?? resolved.shiftedForward ?? now;
  const day = `${wall.year}-${String(wall.month).padStart(2, '0')}-${String(wall.day).padStart(2, '0')}`;
  return { due, day };
}

interface Section {
  readonly title: string;
  readonly lines: string[];
}

function jobSection(
  sources: NotificationSources,
  kv: KeyValueStore,
  job: ReportJob,
  window: { from: number; to: number },
  timeZone: string,
  configFile: string,
): Section {
  const runs = sources.runsBetween(job.name, window.from, window.to);
  const failed = runs.filter((run) => run.outcome === 'failed');
  const lines = [`${runs.length} run(s), ${failed.length} failed.`];
  const connector = job.config.connector;
  if (job.config.flow === 'journal-export' && connector !== undefined)
    lines.push(...booksLines(writtenBatchesBetween(kv, connector, window.from, window.to), connector));
  else lines.push(...countLines(runs, job, sources, window));
  const last = failed.at(-1);
  if (last)
    lines.push(`Last failure ${localTime(last.endedAt, timeZone)}: ${describeRunError(last.error).what}`);
  lines.push(...waitingLines(sources.deadLettersSince(job.name, 0, true), configFile, job.name));
  return { title: `${job.name} (${job.config.flow})`, lines };
}

/** What the journal put into the books: each document and row once, however many runs it took. */
function booksLines(
  batches: ReadonlyArray<WrittenBatch & { batchKey: string }>,
  connector: string,
): string[] {
  if (batches.length === 0) return [`Nothing written to ${connector}.`];
  const references = new Set(batches.flatMap((batch) => batch.references));
  const rows = batches.reduce((sum, batch) => sum + batch.rows, 0);
  const currencies = [...new Set(batches.flatMap((batch) => Object.keys(batch.debits)))];
  const totals = currencies.map((currency) => {
    const total = sumMoney(batches.map((batch) => batch.debits[currency] ?? '0.00'));
    return currency === 'ILS' ? ilsText(total) : `${currency} ${total}`;
  });
  const names = batches.map((batch) => batch.location ?? batch.batchKey);
  const shown = [...references].slice(0, 10).join(', ');
  return [
    `Written to ${connector}: ${references.size} document(s), ${rows} line(s), total ${totals.join(' + ') || ilsText('0.00')}`,
    `Documents: ${shown}${references.size > 10 ? `, and ${references.size - 10} more` : ''}`,
    `Batches (files) written: ${names.join(', ')}`,
  ];
}

function countLines(
  runs: readonly FinishedRun[],
  job: ReportJob,
  sources: NotificationSources,
  window: { from: number; to: number },
): string[] {
  const totals: Record<string, number> = {};
  for (const run of runs)
    for (const [key, value] of Object.entries(run.counts)) totals[key] = (totals[key] ?? 0) + value;
  const lines = Object.entries(totals)
    .filter(([, value]) => value > 0)
    .map(([key, value]) => `${countLabel(job.config.flow, key)}: ${value}`);
  if (job.config.connector === undefined) return lines;
  const written = sources.writtenBetween(job.config.flow, job.config.connector, window.from, window.to);
  if (written.length > 0) lines.push(`Written to ${job.config.connector}: ${written.join(', ')}`);
  return lines;
}

/** What is still held back, with its lines and ILS total, by reason with the fix. */
function waitingLines(groups: readonly NewDeadLetters[], configFile: string, job: string): string[] {
  if (groups.length === 0) return ['Nothing held back.'];
  const count = groups.reduce((sum, group) => sum + group.count, 0);
  const lines = groups.reduce((sum, group) => sum + group.lines, 0);
  const totals = groups.flatMap((group) => (group.total === null ? [] : [group.total]));
  return [
    `Still waiting: ${heldBackAmount(count, lines, totals.length === 0 ? null : sumMoney(totals))} held back.`,
    ...groups.map((group) => `Held back: ${heldBackGroup(group, configFile, job)}`),
  ];
}

export function dailyReport(
  state: StateStore,
  jobs: readonly ReportJob[],
  due: number,
  timeZone: string,
  origin: MessageOrigin,
): NotificationMessage {
  const window = reportWindow(due);
  const { from } = window;
  const sources = new NotificationSources(state.db);
  const sections = jobs.map((job) => jobSection(sources, state.kv, job, window, timeZone, origin.config));
  const period = `${localTime(from, timeZone)} to ${localTime(due, timeZone)} (${timeZone})`;
  const text = [
    `Daily report for ${period}`,
    ...sections.map((section) => [section.title, ...section.lines.map((line) => `  - ${line}`)].join('\n')),
    originLine(origin),
  ].join('\n\n');
  const html = [
    '<!doctype html><html><body>',
    `<h2>Daily report</h2><p>${escapeHtml(period)}</p>`,
    ...sections.map(
      (section) =>
        `<h3>${escapeHtml(section.title)}</h3><ul>${section.lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`,
    ),
    `<p><small>${escapeHtml(originLine(origin))}</small></p>`,
    '</body></html>',
  ].join('\n');
  const held = sections.some((section) => section.lines.some((line) => line.startsWith('Held back')));
  return {
    event: 'daily_report',
    severity: held ? 'warning' : 'info',
    subject: `[supply-sync ${origin.instance}] Daily report ${zonedTime(due, timeZone)}`,
    text: `${text}\n`,
    html: `${html}\n`,
  };
}
