/** The office's status: one row per company (its state, readiness, jobs and dead letters), worst first. */
import type { StatusSnapshot } from '../../ops/index.js';
import type { Daemon } from '../start/run-daemon.js';

export interface CompanyEntry {
  readonly name: string;
  /** starting, running, failed (its start failed: `error` says why), stopped (removed or shutting down). */
  readonly state: 'starting' | 'running' | 'failed' | 'stopped';
  readonly error: string | null;
  readonly daemon: Daemon | undefined;
}

/** The office processes sharing the companies, as this one sees them; `error` when their table cannot be read. */
export interface OfficeInstances {
  readonly instance: string;
  readonly members: readonly string[];
  /** The companies each instance said it cannot run (their config failed there); they run elsewhere. */
  readonly cannotRun: Readonly<Record<string, readonly string[]>>;
  readonly error: string | null;
}

function instancesLine(instances: OfficeInstances | undefined): string {
  if (instances === undefined) return '';
  const names = instances.members.map((name) => {
    const self = name === instances.instance ? `${name} (this one)` : name;
    const cannot = instances.cannotRun[name] ?? [];
    return cannot.length === 0 ? self : `${self} (cannot run ${cannot.join(', ')})`;
  });
  const seen = names.length === 0 ? `not known yet (this one: ${instances.instance})` : names.join('; ');
  const error = instances.error === null ? '' : `<br>Cannot read them now: ${esc(instances.error)}`;
  return `<p>Office processes sharing the companies: ${esc(seen)}${error}</p>\n`;
}

export interface CompanyRow {
  readonly company: string;
  readonly state: CompanyEntry['state'];
  readonly error: string | null;
  readonly ready: boolean;
  readonly headline: string;
  readonly openDeadLetters: number;
  /**
   * With several office instances sharing the companies (a state on PostgreSQL): the instance that runs this
   * company's jobs, as this one last saw it, or null while none does; `here` tells whether it is this instance.
   * For a company that did not start here (its config failed in this process), the instance it is assigned to.
   * Absent for a company on a SQLite file, which this process always runs.
   */
  readonly runsOn?: { readonly instance: string | null; readonly here: boolean };
  readonly jobs: ReadonlyArray<{
    readonly name: string;
    readonly lastOutcome: string | null;
    readonly lastSuccessAt: string | null;
    readonly nextRunAt: string | null;
    readonly paused: boolean;
    /** Why an operator paused it, as given with --reason; null when no reason was given or it runs. */
    readonly pausedReason: string | null;
  }>;
}

/** Where the office's instances place each company, as this one computed it (office-balance.ts). */
export interface CompanyPlacement {
  readonly instance: string;
  ownerOf(company: string): string | null;
  /** Whether the instance said it cannot run the company (its config failed there too). */
  cannotRun(instance: string, company: string): boolean;
}

function rowOf(
  entry: CompanyEntry,
  snapshot: StatusSnapshot | null,
  placement: CompanyPlacement | undefined,
): CompanyRow {
  const where =
    snapshot?.instance != null
      ? { runsOn: runsOn(snapshot) }
      : placement === undefined || entry.state !== 'failed'
        ? {}
        : placedOn(entry.name, placement);
  const jobs = (snapshot?.jobs ?? []).map((job) => ({
    name: job.name,
    lastOutcome: job.lastOutcome,
    lastSuccessAt: job.lastSuccessAt,
    nextRunAt: job.nextRunAt,
    paused: job.paused !== null,
    pausedReason: job.paused?.reason ?? null,
  }));
  return {
    company: entry.name,
    state: entry.state,
    error: entry.error,
    ready: entry.state === 'running' && snapshot?.ready === true,
    headline:
      snapshot?.headline.text ?? (entry.error === null ? entry.state : `${entry.state}: ${entry.error}`),
    openDeadLetters: snapshot?.jobs.reduce((sum, job) => sum + (job.openDeadLetters ?? 0), 0) ?? 0,
    ...where,
    jobs,
  };
}

function runsOn(snapshot: StatusSnapshot): NonNullable<CompanyRow['runsOn']> {
  return { instance: snapshot.leader?.instance ?? null, here: snapshot.role === 'leader' };
}

/**
 * A company that failed here runs where it is assigned; nowhere when that is here, or an instance that said it
 * cannot run it either (the assignment gives such a company to one that can, when there is one). Not said while
 * the instances are not known (at the start, or while the office's database cannot be read).
 */
function placedOn(company: string, placement: CompanyPlacement): Pick<CompanyRow, 'runsOn'> {
  const owner = placement.ownerOf(company);
  if (owner === null) return {};
  const runs = owner !== placement.instance && !placement.cannotRun(owner, company);
  return { runsOn: { instance: runs ? owner : null, here: false } };
}

function runsOnCell(row: CompanyRow): string {
  if (row.runsOn === undefined)
    return row.state === 'failed' ? 'not this process (it failed here)' : 'this process';
  if (row.runsOn.here) return `${esc(row.runsOn.instance)} (this instance)`;
  if (row.runsOn.instance !== null) return esc(row.runsOn.instance);
  return row.state === 'failed' ? 'none: no instance can start it' : 'no instance yet';
}

/** Failed companies first, then those not ready, then those with dead letters; by name within each. */
function worstFirst(a: CompanyRow, b: CompanyRow): number {
  const rank = (row: CompanyRow): number =>
    row.state === 'failed' ? 0 : !row.ready ? 1 : row.openDeadLetters > 0 ? 2 : 3;
  return rank(a) - rank(b) || (a.company < b.company ? -1 : a.company > b.company ? 1 : 0);
}

export async function officeRows(
  entries: readonly CompanyEntry[],
  placement?: CompanyPlacement,
): Promise<CompanyRow[]> {
  const rows = await Promise.all(
    entries.map(async (entry) => {
      const snapshot = entry.daemon === undefined ? null : await entry.daemon.snapshot().catch(() => null);
      return rowOf(entry, snapshot, placement);
    }),
  );
  return rows.sort(worstFirst);
}

function esc(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

function jobState(job: CompanyRow['jobs'][number]): string {
  if (!job.paused) return job.lastOutcome ?? 'no runs';
  return job.pausedReason === null ? 'paused' : `paused (${job.pausedReason})`;
}

function jobCell(row: CompanyRow): string {
  return row.jobs.map((job) => `${esc(job.name)}: ${esc(jobState(job))}`).join('<br>');
}

/** `paused` (still ready) when an operator paused one of its jobs, as the office's /readyz says. */
function readinessCell(row: CompanyRow): string {
  if (!row.ready) return 'not ready';
  return row.jobs.some((job) => job.paused) ? 'paused' : 'ready';
}

/** A running company links to its own page; one that did not start has none. */
function companyCell(row: CompanyRow): string {
  if (row.state !== 'running') return esc(row.company);
  return `<a href="companies/${encodeURIComponent(row.company)}/status">${esc(row.company)}</a>`;
}

/** The office page: no script, no style, so its policy stays `default-src 'none'`. */
export function renderOfficeHtml(rows: readonly CompanyRow[], instances?: OfficeInstances): string {
  const body = rows
    .map(
      (row) =>
        `<tr><td>${companyCell(row)}</td>` +
        `<td>${esc(row.state)}</td><td>${readinessCell(row)}</td><td>${esc(row.headline)}</td>` +
        `<td>${jobCell(row)}</td><td>${row.openDeadLetters}</td><td>${runsOnCell(row)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>supply-sync office</title></head>
<body><h1>supply-sync office: ${rows.length} companies</h1>
${instancesLine(instances)}<table><thead><tr><th>Company</th><th>State</th><th>Readiness</th><th>Headline</th><th>Jobs (last run)</th><th>Dead letters</th><th>Runs on</th></tr></thead>
<tbody>
${body}
</tbody></table></body></html>`;
}
