import type { StatusSnapshot } from './status.js';

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

function table(headers: readonly string[], rows: ReadonlyArray<readonly unknown[]>, empty: string): string {
  if (rows.length === 0) return `<p class="muted">${esc(empty)}</p>`;
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${row.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`)
    .join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}
h1{font-size:1.3rem}h2{font-size:1.05rem;margin-top:1.6rem}
table{border-collapse:collapse}th,td{padding:.3rem .7rem;border-bottom:1px solid #ddd;text-align:left}
.ok{color:#0a7d32}.bad{color:#b00020}.muted{color:#777}`;

/** The status page for IT: plain, self-contained HTML (no scripts, no external assets). */
export function renderStatusHtml(s: StatusSnapshot): string {
  const verdict = s.ready
    ? '<p class="ok"><strong>Ready</strong></p>'
    : `<p class="bad"><strong>Not ready</strong></p>${table(
        ['Check', 'Name', 'State', 'Detail'],
        s.reasons.map((r) => [r.check, r.name, r.state, r.detail]),
        '',
      )}`;
  const jobs = table(
    ['Job', 'Schedule', 'Last run', 'Outcome', 'Next run', 'Freshness', 'Last error'],
    s.jobs.map((j) => [
      j.running ? `${j.name} (running)` : j.name,
      j.schedule,
      j.lastRunAt,
      j.lastOutcome,
      j.nextRunAt,
      j.freshness,
      j.lastError,
    ]),
    'No jobs configured.',
  );
  const connectors = table(
    ['Connector', 'Reachable', 'Checked at', 'Detail'],
    s.connectors.map((c) => [c.name, c.ok ? 'yes' : 'no', c.checkedAtIso, c.detail]),
    'No connectors configured.',
  );
  const deadLetters =
    s.deadLetters === null
      ? '<p class="muted">Not available.</p>'
      : table(
          ['Flow', 'Open'],
          [['all', s.deadLetters.open], ...Object.entries(s.deadLetters.byFlow ?? {})],
          '',
        );
  const outbox =
    s.outbox === null
      ? '<p class="muted">Not available.</p>'
      : table(
          ['Pending', 'Dead', 'Oldest pending'],
          [
            [
              s.outbox.pending,
              s.outbox.dead,
              s.outbox.oldestPendingAt === undefined
                ? null
                : new Date(s.outbox.oldestPendingAt).toISOString(),
            ],
          ],
          '',
        );
  const api =
    s.api === null
      ? '<p class="muted">Not available.</p>'
      : table(
          ['Base URL', 'Environment', 'Last reached', 'Last error'],
          [[s.api.baseUrl, s.api.environment, s.api.lastReachedAt, s.api.lastError]],
          '',
        );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>supply-sync status</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>
<body><h1>supply-sync status</h1><p class="muted">Generated ${esc(s.generatedAt)}</p>
${verdict}
<h2>Jobs</h2>${jobs}
<h2>Dead letters</h2>${deadLetters}
<h2>Outbox</h2>${outbox}
<h2>Connectors</h2>${connectors}
<h2>API</h2>${api}
</body></html>
`;
}
