/**
 * The `reconcile` job kind: `supply-sync sync <job>` runs it as the scheduler would; its result lands in run
 * history (ok when the books match, failed with the differences counted by kind when they do not), and the status
 * page shows that same result.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { jobStatuses } from '../../src/daemon/status/job-status.js';
import { buildStatusSnapshot, DEFAULT_READINESS_POLICY, evaluateReadiness } from '../../src/ops/index.js';
import { renderStatusHtml } from '../../src/ops/status-html.js';
import { openStateStore } from '../../src/state/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry } from '../../src/daemon/plugins/builtin.js';
import { runCli } from '../cli/run-cli.js';
import { exportedBooks, scopes, type Books } from './books.js';

let books: Books;
let period: string;

beforeAll(async () => {
  books = await exportedBooks((dir) => ({ type: 'csv', output_dir: join(dir, 'books') }));
  period = scopes(books).period;
  const config = parse(readFileSync(books.configFile, 'utf8')) as { jobs: Record<string, unknown> };
  config.jobs['month-end'] = {
    flow: 'reconcile',
    connector: 'books',
    schedule: '0 6 2 * *',
    options: { period, export_options: { max_lines_per_batch: 10 } },
  };
  writeFileSync(books.configFile, stringify(config));
}, 120_000);
afterAll(async () => {
  await (books as Books | undefined)?.close();
});

/** The last run in run history, and the status page and readiness as the daemon builds them from it. */
async function seen() {
  const loaded = loadConfig(books.configFile, { env: {}, registry: buildPluginRegistry() });
  const state = openStateStore({ file: join(books.dir, 'state.db'), clock: systemClock, readOnly: true });
  try {
    const now = Date.now();
    const jobs = jobStatuses({
      jobs: Object.entries(loaded.config.jobs),
      state,
      defaultTimezone: 'UTC',
      now,
    });
    const providers = {
      checkStateWritable: () => undefined,
      api: () => ({}),
      connectors: () => [],
      jobs: () => jobs,
    };
    const readiness = await evaluateReadiness(providers, now, DEFAULT_READINESS_POLICY);
    const page = renderStatusHtml(await buildStatusSnapshot(providers, readiness, now, []));
    return { last: state.runs.last('month-end'), page };
  } finally {
    state.close();
  }
}

describe('the reconcile job kind', () => {
  it('records ok in run history when the books match', { timeout: 60_000 }, async () => {
    const run = await runCli(['-c', books.configFile, 'sync', 'month-end']);
    expect(run.stderr).not.toMatch(/error/);
    expect(run.code).toBe(0);
    const { last } = await seen();
    expect(last?.outcome).toBe('ok');
    expect(last?.error).toBeNull();
  });

  it(
    'records failed with the differences by kind, shown on the status page',
    { timeout: 60_000 },
    async () => {
      // A row of a document of the job's period, deleted from the books.
      const folder = join(books.dir, 'books');
      const references = new Set(
        books.exported.filter((l) => l.accounting_period === period).map((l) => l.reference),
      );
      const file = readdirSync(folder).find((name) => {
        const [, row = ''] = readFileSync(join(folder, name), 'utf8').split('\r\n');
        return references.has(row.split(',')[4] ?? '');
      });
      if (file === undefined) throw new Error(`no books file starts with a document of ${period}`);
      const rows = readFileSync(join(folder, file), 'utf8').split('\r\n');
      writeFileSync(join(folder, file), rows.filter((_, i) => i !== 1).join('\r\n'));
      const run = await runCli(['-c', books.configFile, 'sync', 'month-end']);
      const { last, page } = await seen();
      expect(run.code).not.toBe(0);
      expect(last?.outcome).toBe('failed');
      expect(last?.error).toMatch(
        new RegExp(
          `^1 difference\\(s\\), period ${period}: 1 (missing_in_books|amount_differs); run \`supply-sync reconcile journal\``,
        ),
      );
      expect(page).toContain('month-end');
      expect(page).toContain(last?.error?.replace(/`/g, '&#96;').slice(0, 30) ?? 'no error');
      expect(page).toMatch(/<td>month-end<\/td>[\s\S]*?<td>failed<\/td>/);
    },
  );
});
