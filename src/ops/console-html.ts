/**
 * The status page's console: per job its last runs (outcome, counts, duration) and a chart of records per hour over
 * the last day, dead letters grouped by reason, and, for a viewer the control API serves, buttons that call it. The
 * buttons send JSON (the control API takes nothing else), so another site cannot forge their requests.
 */
import type { ConsoleData, ConsoleJob, ConsoleRun, DeadLetterGroup } from './providers.js';

type Time = (iso: string | null) => string | null;
type Esc = (value: unknown) => string;

export const CONSOLE_STYLE = `.chart{vertical-align:middle}.chart rect{fill:#4a7bd0}
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

/** 24 bars, oldest hour on the left; each bar's title says its hour's records. */
function chart(job: ConsoleJob, esc: Esc): string {
  const max = Math.max(1, ...job.recordsPerHour);
  const total = job.recordsPerHour.reduce((sum, n) => sum + n, 0);
  const bars = job.recordsPerHour
    .map((n, hour) => {
      const height = Math.round((n / max) * 28);
      return `<rect x="${hour * 6}" y="${30 - height}" width="5" height="${height}"><title>${esc(
        `${24 - hour} h ago: ${n} records`,
      )}</title></rect>`;
    })
    .join('');
  return `<svg class="chart" role="img" aria-label="${esc(`${total} records in the last 24 hours`)}" width="144" height="30" viewBox="0 0 144 30">${bars}</svg> <span class="muted">${esc(total)} records in 24 h</span>`;
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
        `<tr${run.outcome === 'failed' ? ' class="failing"' : ''}><td>${esc(time(new Date(run.startedAt).toISOString()))}</td><td>${esc(run.trigger)}</td><td>${esc(run.outcome ?? 'running')}</td><td>${esc(counts(run))}</td><td>${esc(duration(run))}</td><td>${esc(run.deadLetters ?? '')}</td><td>${esc(run.error)}</td></tr>`,
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
  const ids = group.ids.slice(0, 20).map((id) => {
    const actions = controls
      ? ` ${button('Retry', `/dead-letters/${id}/retry`, esc)}${button('Discard', `/dead-letters/${id}/discard`, esc)}`
      : '';
    const retrying = group.retrying.includes(id);
    const shown = retrying ? `#${id} (retrying)` : `#${id}`;
    return `<li data-dead-letter="${id}"${retrying ? ' data-retrying' : ''}>${shown}${actions}</li>`;
  });
  const body = esc(JSON.stringify({ flow: group.flow, reason: group.reason }));
  const all = controls
    ? `${button('Retry all', '/dead-letters/retry', esc, ` data-body="${body}"`)}${button('Discard all', '/dead-letters/discard', esc, ` data-body="${body}"`)}`
    : '';
  return `<tr class="failing"><td>${esc(group.flow)}</td><td>${esc(group.reason)}</td><td>${esc(group.count)}</td><td>${all}<ul class="reasons">${ids.join('')}</ul></td></tr>`;
}

/**
 * The click handler: POST as JSON with the page's own credentials, show the answer, reload the page. The answer is
 * kept in the tab's sessionStorage across the reload, so it stays on the page that shows the action's effect.
 */
const SCRIPT = `<script>
const kept = sessionStorage.getItem('console-result');
if (kept) {
  sessionStorage.removeItem('console-result');
  const shown = JSON.parse(kept);
  const out = document.getElementById('console-result');
  out.textContent = shown.text;
  out.dataset.status = shown.status;
}
document.addEventListener('click', async (event) => {
  const target = event.target;
  if (!(target instanceof HTMLButtonElement) || !target.dataset.post) return;
  const out = document.getElementById('console-result');
  let body = target.dataset.body ? JSON.parse(target.dataset.body) : {};
  if (target.dataset.reason !== undefined) {
    const input = document.querySelector('input[data-reason-for="' + CSS.escape(target.dataset.reason) + '"]');
    if (input && input.value) body = { reason: input.value };
  }
  delete out.dataset.status;
  out.textContent = target.textContent + ': sent...';
  const response = await fetch(target.dataset.post, {
    method: 'POST', credentials: 'same-origin',
    headers: { 'content-type': 'application/json' }, body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  const text = response.ok ? 'done' : (answer.detail || answer.error || response.status);
  out.textContent = target.textContent + ': ' + text;
  out.dataset.status = String(response.status);
  if (!response.ok) return;
  sessionStorage.setItem('console-result', JSON.stringify({ text: out.textContent, status: out.dataset.status }));
  setTimeout(() => location.reload(), 300);
});
</script>`;

export function renderConsole(data: ConsoleData, controls: boolean, time: Time, esc: Esc): string {
  const jobs = data.jobs.map((job) => jobBlock(job, controls, time, esc)).join('\n');
  const groups =
    data.deadLetterGroups.length === 0
      ? '<p class="muted">No open dead letters.</p>'
      : `<table><thead><tr><th>Flow</th><th>Reason</th><th>Open</th><th>Dead letters</th></tr></thead><tbody>\n${data.deadLetterGroups
          .map((group) => groupRow(group, controls, esc))
          .join('\n')}\n</tbody></table>`;
  const result = controls ? '<p id="console-result" role="status"></p>' : '';
  return `<h2>Recent runs</h2>${result}${jobs}\n<h2>Dead letters by reason</h2>${groups}${controls ? SCRIPT : ''}`;
}
