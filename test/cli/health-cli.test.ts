import { hostname } from 'node:os';
/** `--version`, `log.pretty`, and the start errors of `run` naming the config key and the fix. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon } from '../../src/daemon/index.js';
import { prettyLine, wantsPretty } from '../../src/log/index.js';
import { dayHeading, prettyStream } from '../../src/log/pretty.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli } from './run-cli.js';

const ROOT = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'supply-sync-cli-health-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const API_KEY = `svc_test_${'k7'.repeat(16)}`;

function writeConfig(name: string, lines: readonly string[]): string {
  const file = join(dir, `${name}.yaml`);
  writeFileSync(file, [...lines, ''].join('\n'));
  return file;
}

// Nothing listens on port 9: a short timeout keeps the in-process daemon's first API probe brief.
const apiLines = ['api:', '  base_url: http://127.0.0.1:9/v2', `  api_key: ${API_KEY}`, '  timeout: 1s'];

describe('supply-sync --version', () => {
  it('prints the version of the package', async () => {
    const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    const result = await runCli(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe(version);
  });
});

describe('status reads the same job-health model as /readyz', () => {
  it('shows a job that never succeeded and whose run failed as failing', { timeout: 30_000 }, async () => {
    const file = writeConfig('status', [
      ...apiLines,
      'state:',
      '  path: status.db',
      'connectors:',
      '  erp: { type: demo-erp, data_dir: erp, journal: false }',
      'jobs:',
      "  orders: { flow: orders, connector: erp, schedule: '* * * * *', freshness: 1h }",
    ]);
    // This process holds the state file as a daemon does (its lock names this pid) until it closes it.
    const state = openStateStore({ file: join(dir, 'status.db'), clock: systemClock });
    let held;
    try {
      const run = state.runs.start('orders', 'schedule');
      state.runs.finish(run, 'failed', {}, 'GET /supplier/orders failed with HTTP 401 key_expired');
      held = await runCli(['status', '--config', file]);
    } finally {
      state.close();
    }
    expect(held.stdout.split('\n')[0]).toBe(`daemon: running (pid ${process.pid} on ${hostname()})`);
    const result = await runCli(['status', '--config', file]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(
      'daemon: not running: no daemon holds the state file any more; no job runs until it is started (`supply-sync run`)',
    );
    const json = JSON.parse((await runCli(['status', '--json', '--config', file])).stdout) as {
      daemon: unknown;
    };
    expect(json.daemon).toEqual({ running: false, why: 'no daemon holds the state file any more' });
    expect(result.stdout).toMatch(
      /^orders\s+failed\s+readiness failing \(has never succeeded; last run failed: GET \/supplier\/orders failed with HTTP 401 key_expired\); last run: schedule; last success never/m,
    );
  });
});

describe('errors of run at start', () => {
  it('names server.port and the fix when the port is in use', { timeout: 30_000 }, async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const address = taken.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    try {
      const file = writeConfig('port', [
        ...apiLines,
        'state:',
        '  path: port.db',
        'server:',
        `  port: ${address.port}`,
      ]);
      const result = await runCli(['run', '--config', file]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${file}: server.port: 127.0.0.1:${address.port} is already in use`);
      expect(result.stderr).toContain('set server.port to a free port');
      expect(result.stderr).toContain('(port_in_use)');
      expect(result.stderr).not.toContain(API_KEY);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('names state.path and who holds it when the state file is locked', { timeout: 30_000 }, async () => {
    const file = writeConfig('locked', [
      ...apiLines,
      'state:',
      '  path: locked.db',
      'server:',
      '  port: 0',
      'log:',
      '  level: silent',
    ]);
    const registry = buildPluginRegistry();
    const holder = await runDaemon({
      loaded: loadConfig(file, { registry }),
      registry,
    });
    try {
      const result = await runCli(['run', '--config', file]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`${file}: state.path:`);
      expect(result.stderr).toContain(`pid ${process.pid}`);
      expect(result.stderr).toContain('give this daemon its own state.path');
      expect(result.stderr).toContain('(state_locked)');
    } finally {
      await holder.stop(5_000);
    }
  });

  it('names the *_file key and the fix when a secret file cannot be read', async () => {
    const file = writeConfig('secret', [
      'api:',
      '  base_url: http://127.0.0.1:9/v2',
      '  api_key_file: secrets/missing-key',
      'state:',
      '  path: secret.db',
    ]);
    const result = await runCli(['run', '--config', file]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /api\.api_key_file: cannot read secret file .*missing-key \(ENOENT\): check the path/,
    );
  });
});

describe('log.pretty', () => {
  const line = JSON.stringify({
    level: 40,
    time: Date.parse('2026-11-24T10:04:05.123Z'),
    pid: 1,
    hostname: 'h',
    msg: 'connector is down',
    connector: 'erp',
    reason: 'connect ECONNREFUSED 127.0.0.1:1',
  });

  it('formats a JSON line as a readable one, in the configured time zone', () => {
    expect(prettyLine(line, 'Asia/Jerusalem')).toBe(
      '12:04:05.123 WARN  connector is down connector=erp reason="connect ECONNREFUSED 127.0.0.1:1"',
    );
    expect(prettyLine('not json')).toBe('not json');
  });

  it("heads each day's lines with the date and the zone of their times", async () => {
    const written: string[] = [];
    const stream = prettyStream({ write: (text: string) => written.push(text) }, 'Asia/Jerusalem');
    const at = (iso: string, msg: string): string =>
      `${JSON.stringify({ level: 30, time: Date.parse(iso), msg })}\n`;
    stream.write(at('2026-11-30T21:59:00.000Z', 'late'));
    stream.write(at('2026-11-30T21:59:30.000Z', 'later'));
    stream.end(at('2026-11-30T22:00:01.000Z', 'next day'));
    await new Promise((resolve) => stream.on('finish', resolve));
    expect(written.join('')).toBe(
      [
        '-- 2026-11-30, times in Asia/Jerusalem (UTC+02:00) --',
        '23:59:00.000 INFO  late',
        '23:59:30.000 INFO  later',
        '-- 2026-12-01, times in Asia/Jerusalem (UTC+02:00) --',
        '00:00:01.000 INFO  next day',
        '',
      ].join('\n'),
    );
    expect(dayHeading(Date.parse('2026-07-01T12:00:00Z'), 'Asia/Jerusalem')).toContain('(UTC+03:00)');
    expect(dayHeading(Date.parse('2026-07-01T12:00:00Z'), 'UTC')).toBe(
      '-- 2026-07-01, times in UTC (UTC+00:00) --',
    );
  });

  it('is pretty on a terminal and JSON in pipes by default; true and false win', () => {
    expect(wantsPretty('auto', true)).toBe(true);
    expect(wantsPretty('auto', undefined)).toBe(false);
    expect(wantsPretty(true, false)).toBe(true);
    expect(wantsPretty(false, true)).toBe(false);
  });

  function syncConfig(name: string, pretty: string | null): string {
    return writeConfig(name, [
      'api:',
      '  sandbox: embedded',
      'state:',
      `  path: ${name}/state.db`,
      'log:',
      '  level: info',
      ...(pretty === null ? [] : [`  pretty: ${pretty}`]),
      'connectors:',
      '  erp: { type: demo-erp, data_dir: erp, journal: false }',
      'jobs:',
      '  orders: { flow: orders, connector: erp }',
    ]);
  }

  it(
    'writes JSON lines into a pipe by default, and pretty lines with pretty: true',
    { timeout: 60_000 },
    async () => {
      const json = await runCli(['sync', 'orders', '--config', syncConfig('pipe-default', null)]);
      expect(json.code, json.stderr).toBe(0);
      expect(json.stdout).toMatch(/^\{"level":30,.*"msg":"run started"/m);
      const pretty = await runCli(['sync', 'orders', '--config', syncConfig('pipe-pretty', 'true')]);
      expect(pretty.code, pretty.stderr).toBe(0);
      expect(pretty.stdout).toMatch(/^\d\d:\d\d:\d\d\.\d{3} INFO {2}run started job=orders/m);
      expect(pretty.stdout).toMatch(/^-- \d{4}-\d\d-\d\d, times in [\w/+-]+ \(UTC[+-]\d\d:\d\d\) --$/m);
      expect(pretty.stdout).not.toMatch(/^\{"level"/m);
    },
  );

  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  it.skipIf(!hasScript)(
    'writes pretty lines on a terminal by default (util-linux script gives it one)',
    { timeout: 60_000 },
    () => {
      const file = syncConfig('tty-default', null);
      const command = `${process.execPath} --import tsx src/cli/main.ts sync orders --config ${file}`;
      const result = spawnSync('script', ['-qec', command, '/dev/null'], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 50_000,
      });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toMatch(/\d\d:\d\d:\d\d\.\d{3} INFO {2}run started job=orders/);
      expect(result.stdout).not.toContain('{"level"');
    },
  );
});
