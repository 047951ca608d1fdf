/**
 * The status page's console: per job its last runs (outcome, counts, duration) and a chart of records per hour over
 * the last day, dead letters grouped by reason, and, for a viewer the control API serves, buttons that call it. The
 * buttons send JSON (the control API takes nothing else), so another site cannot forge their requests.
 */
import type {
  ConsoleData,
  ConsoleJob,
  ConsoleRun,
  DeadLetterGroup,
  MissingMappingFixView,
} from './providers.js';

type Time = (iso: string | null) => string | null;
type Esc = (value: unknown) => string;

export const CONSOLE_STYLE = `.chart{vertical-align:middle}.chart rect{fill:#4a7bd0}.chart .axis{stroke:#888}
.chart text{font-size:9px;fill:#555}.sign-in input{font:inherit;width:9rem}
button{font:inherit;padding:.1rem .6rem;margin:0 .2rem .2rem 0;cursor:pointer}
.actions input{font:inherit;width:12rem}#console-result{font-weight:600}`;

function duration(run: ConsoleRun): string {
  if (run.endedAt === null) return 'running';
  const seconds = (run.endedAt - run.startedAt) / 1000;
  return seconds < 60 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds / 60)} min`;
}

function counts(run: ConsoleRun): string {
  return Object.entries(run.counts)
    .map(([name, n]) => `${name}=${n}`)
    .join(' ');
}

/**
 * 24 hourly bars, oldest on the left, on axes: the count scale on the left (0 and the largest hour), hours ago
 * along the bottom (24 h, 12 h, now). Each bar's title says its hour's records.
 */
function chart(job: ConsoleJob, esc: Esc): string {
  const max = Math.max(1, ...job.recordsPerHour);
  const total = job.recordsPerHour.reduce((sum, n) => sum + n, 0);
  const left = 28;
  const bars = job.recordsPerHour
    .map((n, hour) => {
      const height = Math.round((n / max) * 40);
      return `<rect x="${left + 2 + hour * 7}" y="${44 - height}" width="6" height="${height}"><title>${esc(
        `${24 - hour}–${23 - hour} h ago: ${n} records`,
      )}</title></rect>`;
    })
    .join('');
  const axes =
    `<line class="axis" x1="${left}" y1="2" x2="${left}" y2="44"/><line class="axis" x1="${left}" y1="44" x2="${left + 172}" y2="44"/>` +
    `<text x="${left - 3}" y="8" text-anchor="end">${esc(max)}</text><text x="${left - 3}" y="44" text-anchor="end">0</text>` +
    `<text x="${left}" y="56">24 h ago</text><text x="${left + 86}" y="56" text-anchor="middle">12 h</text>` +
    `<text x="${left + 172}" y="56" text-anchor="end">now</text>`;
  return `<svg class="chart" role="img" aria-label="${esc(`${total} records in the last 24 hours`)}" width="204" height="60" viewBox="0 0 204 60">${axes}${bars}</svg> <span class="muted">${esc(total)} records in 24 h, per hour</span>`;
}

function button(label: string, path: string, esc: Esc, extra = ''): string {
  return `<button type="button" data-post="${esc(path)}"${extra}>${esc(label)}</button>`;
}

function jobActions(job: ConsoleJob, esc: Esc): string {
  const name = encodeURIComponent(job.name);
  const run = button('Run now', `/jobs/${name}/run?wait=true`, esc);
  if (job.paused) return `<div class="actions">${run}${button('Resume', `/jobs/${name}/resume`, esc)}</div>`;
  const reason = `<input type="text" placeholder="reason (optional)" data-reason-for="${esc(job.name)}">`;
  return `<div class="actions">${run}${button('Pause', `/jobs/${name}/pause`, esc, ` data-reason="${esc(job.name)}"`)}${reason}</div>`;
}

function jobBlock(job: ConsoleJob, controls: boolean, time: Time, esc: Esc): string {
  const rows = job.runs
    .map(
      (run) =>
        `<tr${run.outcome === 'failed' ? ' class="failing"' : ''}><td>${esc(time(new Date(run.startedAt).toISOString()))}</td><td>${esc(run.requestedBy === run.trigger ? run.trigger : `${run.trigger} by ${run.requestedBy}`)}</td><td>${esc(run.outcome ?? 'running')}</td><td>${esc(counts(run))}</td><td>${esc(duration(run))}</td><td>${esc(run.deadLetters ?? '')}</td><td>${esc(run.error)}</td></tr>`,
    )
    .join('\n');
  const table =
    job.runs.length === 0
      ? '<p class="muted">No runs yet.</p>'
      : `<table><thead><tr><th>Started</th><th>Trigger</th><th>Outcome</th><th>Counts</th><th>Duration</th><th>Dead letters</th><th>First error</th></tr></thead><tbody>\n${rows}\n</tbody></table>`;
  const paused = job.paused ? ' <span class="muted">(paused)</span>' : '';
  return `<section class="job" data-job="${esc(job.name)}"><h3>${esc(job.name)}${paused}</h3><p>${chart(job, esc)}</p>${controls ? jobActions(job, esc) : ''}${table}</section>`;
}

function groupRow(group: DeadLetterGroup, controls: boolean, esc: Esc): string {
  const ids = group.ids.slice(0, 20).map((id, index) => {
    const retrying = group.retrying.includes(id);
    const retry = retrying ? '' : button('Retry', `/dead-letters/${id}/retry`, esc);
    const actions = controls ? ` ${retry}${button('Discard', `/dead-letters/${id}/discard`, esc)}` : '';
    const named = `#${id} ${group.keys[index] ?? ''}`.trim();
    const shown = retrying ? `${named} (retrying)` : named;
    return `<li data-dead-letter="${id}"${retrying ? ' data-retrying' : ''}>${esc(shown)}${actions}</li>`;
  });
  const more =
    group.count > ids.length ? `<li class="muted">${esc(`and ${group.count - ids.length} more`)}</li>` : '';
  const body = esc(JSON.stringify({ flow: group.flow, reason: group.reason }));
  const letters = group.count === 1 ? '1 open dead letter' : `${group.count} open dead letters`;
  const ask = (verb: string) =>
    ` data-body="${body}" data-confirm="${esc(`${verb} all ${letters} of ${group.flow} held back for "${group.reason}"?`)}"`;
  const all = controls
    ? `${button('Retry all', '/dead-letters/retry', esc, ask('Retry'))}${button('Discard all', '/dead-letters/discard', esc, ask('Discard'))}`
    : '';
  return `<tr class="failing"><td>${esc(group.flow)}</td><td>${esc(group.reason)}</td><td>${esc(group.count)}</td><td>${all}<ul class="reasons">${ids.join('')}${more}</ul></td></tr>`;
}

/** What to do about the letters held back for a missing mapping: the fix, beside the letters it lets through. */
function fixList(fixes: readonly MissingMappingFixView[] | undefined, esc: Esc): string {
  if (fixes === undefined || fixes.length === 0) return '';
  const items = fixes.map((f) => {
    const ids = f.ids.map((id) => `#${id}`).join(', ');
    return `<li data-fix-flow="${esc(f.flow)}">${esc(`${ids} (${f.flow}: ${f.summary})`)}: to fix, <span class="fix">${esc(f.fix)}</span>.</li>`;
  });
  return `\n<h3>How to fix missing mappings</h3><ul class="fixes">${items.join('')}</ul>`;
}

export function renderConsole(data: ConsoleData, controls: boolean, time: Time, esc: Esc): string {
  const jobs = data.jobs.map((job) => jobBlock(job, controls, time, esc)).join('\n');
  const groups =
    data.deadLetterGroups.length === 0
      ? '<p class="muted">No open dead letters.</p>'
      : `<table><thead><tr><th>Flow</th><th>Reason</th><th>Open</th><th>Dead letters</th></tr></thead><tbody>\n${data.deadLetterGroups
          .map((group) => groupRow(group, controls, esc))
          .join('\n')}\n</tbody></table>`;
  const result = controls ? '<p id="console-result" role="status"></p>' : '';
  return `<h2>Recent runs</h2>${result}${jobs}\n<h2>Dead letters by reason</h2>${groups}${fixList(data.missingMappingFixes, esc)}`;
}
