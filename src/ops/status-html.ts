import { renderNotificationsSection } from './notifications-view.js';
import type { JobView, StatusSnapshot } from './status.js';
import { CONSOLE_STYLE, renderConsole } from './console-html.js';
import { CONSOLE_SCRIPT, SIGN_IN_FORM } from './console-script.js';
import { STATUS_REFRESH_SECONDS } from './refresh.js';
import { shownTime } from './time-format.js';

export { STATUS_REFRESH_SECONDS } from './refresh.js';

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

function esc(value: unknown): string {
  if (value === null || value === undefined || value === '') return '&ndash;';
  return String(value).replace(/[&<>"']/g, (ch) => ESCAPES[ch] ?? ch);
}

interface Row {
  cells: readonly unknown[];
  /** Highlighted as a failure. */
  bad?: boolean;
}

function table(headers: readonly string[], rows: readonly Row[], empty: string): string {
  if (rows.length === 0) return `<p class="muted">${esc(empty)}</p>`;
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr${row.bad === true ? ' class="failing"' : ''}>${row.cells.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}
h1{font-size:1.3rem}h2{font-size:1.05rem;margin-top:1.6rem}
table{border-collapse:collapse}th,td{padding:.3rem .7rem;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
.headline{padding:.7rem 1rem;border-radius:4px;font-weight:600;font-size:1.1rem}
.headline.ok{background:#e3f4e8;color:#0a5d26}.headline.warn{background:#fff4d6;color:#7a4d00}
.headline.bad{background:#fde2e4;color:#8c0016}
tr.failing td{background:#fde2e4;color:#8c0016}
.muted{color:#777}ul.reasons{margin:.2rem 0 0 1rem;padding:0}`;

/**
 * Which instance runs the jobs, where two or more share a PostgreSQL state; nothing on a single instance. A standby
 * is ready and shows the shared state's jobs, so the page must say that another instance runs them.
 */
function leadershipLine(s: StatusSnapshot, time: (iso: string | null) => string | null): string {
  if (s.instance === null) return '';
  const leader = s.leader;
  const term = leader === null ? '' : ` since ${esc(time(leader.since))} (term ${esc(leader.epoch)})`;
  const self = `This instance (${esc(s.instance)})`;
  let text: string;
  if (s.role === 'leader') text = `${self} leads${term} and runs the jobs.`;
  else if (leader !== null)
    text = `${self} stands by; ${esc(leader.instance)} leads${term} and runs the jobs.`;
  else if (s.leadershipError !== null) {
    // Unknown, not "nobody": another instance may still lead and run the jobs.
    text = `${self} stands by; it cannot tell which instance leads: ${esc(s.leadershipError)}`;
  } else text = `${self} stands by; no instance leads, so no job runs.`;
  return `<p id="leadership">${text}</p>`;
}

/** A pause, since when in the configured zone like the page's other times, by whom and why. */
function pausedText(
  paused: NonNullable<JobView['paused']>,
  time: (iso: string | null) => string | null,
): string {
  const why = paused.reason === null ? '' : `: ${paused.reason}`;
  return `paused since ${time(paused.since) ?? paused.since} by ${paused.by}${why}`;
}

/** The freshness column; a pause says so instead of the freshness detail. */
function freshnessCell(j: JobView, time: (iso: string | null) => string | null): string {
  if (j.paused !== null) return `${j.freshness}: ${pausedText(j.paused, time)}`;
  return j.freshnessDetail === null ? j.freshness : `${j.freshness}: ${j.freshnessDetail}`;
}

type Time = (iso: string | null) => string | null;

function jobsTable(s: StatusSnapshot, time: Time): string {
  const headers = ['Job', 'Schedule', 'Last run', 'Outcome', 'Last success', 'Next run', 'Freshness'];
  return table(
    [...headers, 'Dead letters', 'Last error'],
    s.jobs.map((j) => ({
      cells: [
        j.running ? `${j.name} (running)` : j.name,
        j.schedule,
        time(j.lastRunAt),
        j.lastOutcome,
        time(j.lastSuccessAt),
        j.paused === null ? time(j.nextRunAt) : pausedText(j.paused, time),
        freshnessCell(j, time),
        j.openDeadLetters,
        j.lastError,
      ],
      bad: j.attention,
    })),
    'No jobs configured.',
  );
}

function connectorsTable(s: StatusSnapshot, time: Time): string {
  return table(
    ['Connector', 'Reachable', 'Checked', 'Detail'],
    s.connectors.map((c) => ({
      cells: [c.name, c.ok ? 'yes' : 'no', time(c.checkedAtIso), c.detail],
      bad: !c.ok,
    })),
    'No connectors configured.',
  );
}

function outboxTable(s: StatusSnapshot, time: Time): string {
  if (s.outbox === null) return '<p class="muted">Not available.</p>';
  const oldest = s.outbox.oldestPendingAt;
  const cells = [
    s.outbox.pending,
    s.outbox.dead,
    time(oldest === undefined ? null : new Date(oldest).toISOString()),
  ];
  return table(['Pending', 'Dead', 'Oldest pending'], [{ cells, bad: s.outbox.dead > 0 }], '');
}

function apiTable(s: StatusSnapshot, time: Time): string {
  if (s.api === null) return '<p class="muted">Not available.</p>';
  const cells = [s.api.baseUrl, s.api.environment, time(s.api.lastReachedAt), s.api.lastError];
  const bad = (s.api.credentialFailures ?? []).length > 0;
  return table(['Base URL', 'Environment', 'Last authenticated call', 'Last error'], [{ cells, bad }], '');
}

function aboutLine(s: StatusSnapshot, time: Time): string {
  return [
    `supply-sync ${esc(s.version ?? 'unknown version')}`,
    `generated ${esc(time(s.generatedAt))}`,
    s.startedAt === null ? '' : `running since ${esc(time(s.startedAt))}`,
    `times in ${esc(s.timezone ?? 'UTC')}`,
    `refreshes every ${STATUS_REFRESH_SECONDS} s`,
  ]
    .filter((part) => part !== '')
    .join(' &middot; ');
}

function page(body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>supply-sync status</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}${CONSOLE_STYLE}</style></head>
<body>${body}
${CONSOLE_SCRIPT}
</body></html>
`;
}

/**
 * The status page for IT: self-contained HTML (no external assets) that refreshes itself. With `controls` (the
 * control API is served) it carries the sign-in form and the console's buttons.
 */
export function renderStatusHtml(s: StatusSnapshot, options: { controls?: boolean } = {}): string {
  const now = Date.parse(s.generatedAt);
  const tz = s.timezone ?? undefined;
  const time: Time = (iso) => shownTime(iso, now, tz);
  const reasons = s.ready
    ? ''
    : table(
        ['Check', 'Name', 'State', 'Detail'],
        s.reasons.map((r) => ({ cells: [r.check, r.name, r.state, r.detail], bad: true })),
        '',
      );
  const controls = options.controls === true;
  return page(`<h1>supply-sync status</h1>${controls ? SIGN_IN_FORM : ''}<p class="muted">${aboutLine(s, time)}</p>
<p class="headline ${s.headline.level}" id="headline">${esc(s.headline.text)}</p>
${leadershipLine(s, time)}
${reasons}
<h2>Jobs</h2>${jobsTable(s, time)}
${s.console == null ? '' : renderConsole(s.console, controls, time, esc)}
<h2>Connectors</h2>${connectorsTable(s, time)}
<h2>Dead letters</h2>${deadLetterSection(s, time)}
<h2>Outbox</h2>${outboxTable(s, time)}
<h2>API</h2>${apiTable(s, time)}
${renderNotificationsSection(s.notifications ?? null, time)}`);
}

/** What a browser without credentials gets where the page needs them: the sign-in form, nothing of the daemon. */
export function renderSignInPage(): string {
  return page(`<h1>supply-sync status</h1><p id="sign-in-only">Sign in with a token, or a name and password, of
server.auth (or, on the daemon's host, the local token). The credential stays in this tab only.</p>
${SIGN_IN_FORM}`);
}

/**
 * Open dead letters per flow. Where the console is on the page, it lists each letter (under "Dead letters by
 * reason", with its buttons), so this section gives only the counts: a letter is listed once.
 */
function deadLetterSection(s: StatusSnapshot, time: (iso: string | null) => string | null): string {
  if (s.deadLetters === null) return '<p class="muted">Not available.</p>';
  const flows =
    s.deadLetters.flows ??
    Object.entries(s.deadLetters.byFlow ?? {}).map(([flow, open]) => ({ flow, open, latest: [] }));
  if (flows.length === 0) return '<p class="muted">No open dead letters.</p>';
  if (s.console != null) {
    const counts = flows.map(
      (f) => `<tr class="failing"><td>${esc(f.flow)}</td><td>${esc(f.open)}</td></tr>`,
    );
    return `<p>${esc(s.deadLetters.open)} open in all, each listed under "Dead letters by reason" above.</p><table><thead><tr><th>Flow</th><th>Open</th></tr></thead><tbody>
${counts.join('\n')}
</tbody></table>`;
  }
  const rows = flows.map((f) => {
    const latest =
      f.latest.length === 0
        ? '&ndash;'
        : `<ul class="reasons">${f.latest
            .map(
              (letter) =>
                `<li>${esc(letter.recordKey)}: ${esc(letter.reason)} <span class="muted">(${esc(
                  time(new Date(letter.lastSeen).toISOString()),
                )})</span></li>`,
            )
            .join('')}</ul>`;
    return `<tr class="failing"><td>${esc(f.flow)}</td><td>${esc(f.open)}</td><td>${latest}</td></tr>`;
  });
  return `<p>${esc(s.deadLetters.open)} open in all.</p><table><thead><tr><th>Flow</th><th>Open</th><th>Latest reasons</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`;
}
