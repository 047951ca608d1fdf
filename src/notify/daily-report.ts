/**
 * The daily report: per job, what the last 24 hours did (runs, what was exported or written and where) and what is
 * held back with the reason and its fix, as plain text and simple HTML, times in the configured time zone.
 */
import type { JobConfig } from '../config/index.js';
import { resolveWallTime, wallTimeAt } from '../scheduler/zoned-time.js';
import { missingMappingFix } from '../shared/missing-mapping.js';
import { NotificationSources, type NewDeadLetters } from '../state/index.js';
import {
  escapeHtml,
  localTime,
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
  job: ReportJob,
  from: number,
  to: number,
  timeZone: string,
  configFile: string,
): Section {
  const runs = sources.runsBetween(job.name, from, to);
  const failed = runs.filter((run) => run.outcome === 'failed');
  const totals: Record<string, number> = {};
  for (const run of runs)
    for (const [key, value] of Object.entries(run.counts)) totals[key] = (totals[key] ?? 0) + value;
  const lines = [`${runs.length} run(s), ${failed.length} failed.`];
  for (const [key, value] of Object.entries(totals))
    if (value > 0) lines.push(`${countLabel(job.config.flow, key)}: ${value}`);
  const last = failed.at(-1);
  if (last)
    lines.push(`Last failure ${localTime(last.endedAt, timeZone)}: ${last.error ?? 'no error recorded'}`);
  if (job.config.connector !== undefined) {
    const written = sources.writtenBetween(job.config.flow, job.config.connector, from, to);
    if (written.length > 0) lines.push(`Written to ${job.config.connector}: ${written.join(', ')}`);
  }
  const held = sources.deadLettersSince(job.name, 0, true);
  if (held.length === 0) lines.push('Nothing held back.');
  for (const group of held) lines.push(heldBack(group, configFile, job.name));
  return { title: `${job.name} (${job.config.flow})`, lines };
}

/** One reason documents are held back: how many, why, which, and the fix when it is known. */
export function heldBack(group: NewDeadLetters, configFile: string, job: string): string {
  const line = `Held back: ${group.count} × ${group.reason} (for example ${group.examples.join(', ')})`;
  if (group.missing === null) return line;
  return `${line}. To fix: ${missingMappingFix(group.missing, configFile, job)}.`;
}

export function dailyReport(
  sources: NotificationSources,
  jobs: readonly ReportJob[],
  due: number,
  timeZone: string,
  origin: MessageOrigin,
): NotificationMessage {
  const from = due - DAY_MS;
  const sections = jobs.map((job) => jobSection(sources, job, from, due, timeZone, origin.config));
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
    subject: `[supply-sync ${origin.instance}] Daily report ${localTime(due, timeZone)}`,
    text: `${text}\n`,
    html: `${html}\n`,
  };
}
