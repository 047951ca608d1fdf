/**
 * A new operator follows the missing-mapping fix from any one place: `dead-letters list` (text and JSON), `status` and
 * the status page all give the sentence the notifications give, beside the letters it lets through, and the list
 * shows its times in the configured zone, labelled.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleData } from '../../src/daemon/status/console-data.js';
import { renderStatusHtml } from '../../src/ops/status-html.js';
import type { StatusSnapshot } from '../../src/ops/status.js';
import type { Clock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli } from './run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'supply-sync-cli-fix-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, 'supply-sync.yaml');
const stateFile = join(dir, 'state.db');

// 21:15:02 UTC is 23:15:02 in Jerusalem (UTC+2 in November).
const FILED = Date.parse('2026-11-24T21:15:02.000Z');
const fixedClock: Clock = { now: () => FILED, sleep: () => Promise.resolve() };

const FIX =
  `add VEG-0001 under mappings.skus in ${file}, then run \`supply-sync config reload\` and ` +
  '`supply-sync dead-letters retry --flow orders --missing skus:VEG-0001`';

beforeAll(() => {
  writeFileSync(
    file,
    [
      'api:',
      '  base_url: http://127.0.0.1:9/v2',
      '  api_key: svc_test_k7Qm2Zr9Xw4Lp8Tn3Vb6Hc1Jd5',
      'timezone: Asia/Jerusalem',
      'state:',
      '  path: state.db',
      'connectors:',
      '  erp: { type: demo-erp, data_dir: erp, journal: false }',
      'jobs:',
      "  orders: { flow: orders, connector: erp, schedule: '0 3 1 1 *' }",
      '',
    ].join('\n'),
  );
  const state = openStateStore({ file: stateFile, clock: fixedClock });
  try {
    const missing = { kind: 'SKU', table: 'skus', key: 'VEG-0001', pickup: 'retry' };
    state.deadLetters.add('orders', 'ord_1', { id: 'ord_1', missing }, 'no ERP item for SKU VEG-0001');
    state.deadLetters.add('orders', 'ord_2', { id: 'ord_2', missing }, 'no ERP item for SKU VEG-0001');
    state.deadLetters.add('orders', 'ord_3', { id: 'ord_3' }, 'rejected by the ERP: customer on hold');
    const odd = { kind: 'SKU', table: 'skus', key: '<b>X&Y', pickup: 'retry' };
    state.deadLetters.add('orders', 'ord_4', { id: 'ord_4', missing: odd }, 'no ERP item for SKU <b>X&Y');
  } finally {
    state.close();
  }
});

describe('dead-letters list gives the fix for a missing mapping', () => {
  it(
    'prints each letter with its time in the configured zone, then one fix line per missing mapping',
    {
      timeout: 30_000,
    },
    async () => {
      const result = await runCli(['dead-letters', 'list', '--config', file]);
      expect(result.code, result.stderr).toBe(0);
      const lines = result.stdout.trim().split('\n');
      expect(lines[0]).toBe(
        '#1 orders ord_1 [open, 1 attempt, last 2026-11-24 23:15:02 Asia/Jerusalem]: no ERP item for SKU VEG-0001',
      );
      expect(lines.slice(4)).toEqual([
        `To fix #1, #2 (orders: SKU value "VEG-0001" has no entry in mappings.skus): ${FIX}.`,
        `To fix #4 (orders: SKU value "<b>X&Y" has no entry in mappings.skus): add "<b>X&Y" under mappings.skus ` +
          `in ${file}, then run \`supply-sync config reload\` and ` +
          "`supply-sync dead-letters retry --flow orders --missing 'skus:<b>X&Y'`.",
      ]);
    },
  );

  it(
    'gives a fix field to each letter with a missing mapping in --json, and none to the others',
    {
      timeout: 30_000,
    },
    async () => {
      const result = await runCli(['dead-letters', 'list', '--json', '--config', file]);
      expect(result.code, result.stderr).toBe(0);
      const letters = JSON.parse(result.stdout) as Array<{ id: number; fix?: string }>;
      expect(letters.map((letter) => [letter.id, letter.fix ?? null]).slice(0, 3)).toEqual([
        [1, FIX],
        [2, FIX],
        [3, null],
      ]);
    },
  );
});

describe('status and the status page give the same fix', () => {
  it(
    'status prints a line for the flow holding letters back, with the fix',
    { timeout: 30_000 },
    async () => {
      const result = await runCli(['status', '--config', file]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain(
        `orders           holds back #1, #2 (orders: SKU value "VEG-0001" has no entry in mappings.skus); to fix: ${FIX}\n`,
      );
    },
  );

  it('the status page shows the fix next to the dead letters by reason, escaped', () => {
    const state = openStateStore({ file: stateFile, clock: fixedClock });
    let html: string;
    try {
      html = renderStatusHtml(snapshot({ console: consoleData(state, ['orders'], FILED, file) }));
    } finally {
      state.close();
    }
    const fixes = html.slice(html.indexOf('<h2>Dead letters by reason</h2>'));
    const escapedFix = FIX.replaceAll('"', '&quot;');
    expect(fixes).toContain(
      `#1, #2 (orders: SKU value &quot;VEG-0001&quot; has no entry in mappings.skus): to fix, <span class="fix">${escapedFix}</span>.`,
    );
    expect(fixes).toContain('add &quot;&lt;b&gt;X&amp;Y&quot; under mappings.skus');
    expect(html).not.toContain('<b>X');
  });
});

function snapshot(over: Partial<StatusSnapshot>): StatusSnapshot {
  return {
    generatedAt: new Date(FILED).toISOString(),
    headline: { level: 'ok', text: 'Ready' },
    version: '1.0.0',
    timezone: 'Asia/Jerusalem',
    startedAt: null,
    ready: true,
    role: 'leader',
    instance: null,
    leader: null,
    leadershipError: null,
    reasons: [],
    jobs: [],
    deadLetters: null,
    outbox: null,
    connectors: [],
    api: null,
    ...over,
  };
}
