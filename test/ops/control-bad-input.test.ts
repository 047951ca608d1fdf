/**
 * Bad input to the control API and the CLI: a malformed path or query is a 400 naming it (not a 500); an unknown
 * job, cursor or dead letter is a 404 when the command is asked, and nothing is queued; every outcome code a command
 * can end with has its status in docs/control-api.json and GET /commands/{id} answers it; a reader that stops
 * reading (`runs | head -1`) ends the CLI quietly.
 */
import { spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Daemon } from '../../src/daemon/index.js';
import { STATUS_BY_CODE } from '../../src/daemon/control/outcome-codes.js';
import { ROOT } from '../contract/openapi/tools.js';
import { openHealthWorld, type HealthWorld } from '../daemon/health-support.js';
import { compiledEntry } from '../support/compiled-entry.js';
import { MALFORMED_TARGETS, requestRawTarget } from '../support/raw-target.js';

const TOKEN = 'ops-token-for-the-bad-input-test';

interface Operation {
  responses: Record<string, { description?: string; $ref?: string }>;
}
const document = JSON.parse(readFileSync(join(ROOT, 'docs', 'control-api.json'), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};

/** The codes the sources give a ControlError or record a command failed with. */
function codesInSources(dir: string): string[] {
  const codes = new Set<string>();
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
    for (const match of text.matchAll(/new ControlError\(\s*'([a-z_]+)'/g)) codes.add(match[1] ?? '');
  }
  return [...codes].sort();
}

describe('the outcome codes', () => {
  it('gives every code the sources use a status', () => {
    const codes = codesInSources(join(ROOT, 'src'));
    expect(codes.length).toBeGreaterThan(10);
    expect(codes.filter((code) => STATUS_BY_CODE[code] === undefined)).toEqual([]);
  });

  it('documents every code with its status on GET /commands/{id}', () => {
    const responses = document.paths['/commands/{id}']?.['get']?.responses ?? {};
    const undocumented = Object.entries(STATUS_BY_CODE).filter(
      ([code, status]) => !(responses[String(status)]?.description ?? '').includes(`\`${code}\``),
    );
    expect(undocumented).toEqual([]);
  });
});

describe('bad input to a running daemon', () => {
  let world: HealthWorld;
  let daemon: Daemon;
  const call = (method: string, path: string, body: unknown = {}) =>
    fetch(`${daemon.opsUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      ...(method === 'POST' ? { body: JSON.stringify(body) } : {}),
    });
  const commandCount = (): number =>
    (daemon.env.state.db.prepare('SELECT COUNT(*) AS n FROM commands').get() as { n: number }).n;

  beforeAll(async () => {
    world = await openHealthWorld();
    daemon = await world.start({
      server: { port: 0, auth: { token: TOKEN, role: 'operator' } },
      connectors: { erp: { type: 'demo-erp', data_dir: 'erp', journal: false } },
      jobs: { orders: { flow: 'orders', connector: 'erp', schedule: '0 3 1 1 *' } },
    });
  });
  afterAll(async () => world?.close());

  it('answers 400 naming a path segment or query parameter that is not valid percent-encoding', async () => {
    const cases: Array<[string, string, string]> = [
      ['POST', '/jobs/%E0/run', 'path segment {job} "%E0"'],
      ['POST', '/jobs/%E0%A4/pause', 'path segment {job} "%E0%A4"'],
      ['POST', '/cursors/x%FF/reset', 'path segment {stream} "x%FF"'],
      ['GET', '/commands/%C0', 'path segment {id} "%C0"'],
      ['GET', '/dead-letters?flow=%E0', 'query parameter flow'],
      ['GET', '/runs?job=orders&since=%', 'query parameter since'],
    ];
    const before = commandCount();
    for (const [method, path, named] of cases) {
      const response = await call(method, path);
      expect({ path, status: response.status }).toEqual({ path, status: 400 });
      expect(await response.json()).toEqual({
        error: 'usage',
        detail: `${named} is not valid percent-encoded UTF-8`,
      });
    }
    // A well-formed encoded name is decoded once: an unknown job named in its own words.
    const encoded = await call('POST', '/jobs/ord%C3%A9rs/pause');
    expect(encoded.status).toBe(404);
    expect(await encoded.json()).toMatchObject({
      error: 'unknown_job',
      detail: expect.stringContaining('no job "ordérs"'),
    });
    expect(commandCount()).toBe(before);
  });

  it('answers 400 to a request target that is not a URL, on any path, and logs no error', async () => {
    for (const target of MALFORMED_TARGETS) {
      for (const method of ['GET', 'POST']) {
        const reply = await requestRawTarget(daemon.opsUrl, target, method);
        expect({ target, method, status: reply.status }).toEqual({ target, method, status: 400 });
        expect(JSON.parse(reply.body)).toEqual({ error: 'bad_request_target' });
      }
    }
    expect(world.logs.filter((line) => line['level'] >= 50)).toEqual([]);
    expect((await fetch(`${daemon.opsUrl}/healthz`)).status).toBe(200);
  });

  it('answers 404 for an unknown job, cursor or dead letter when asked, and queues nothing', async () => {
    const before = commandCount();
    const cases: Array<[string, string]> = [
      ['/jobs/nope/pause', 'unknown_job'],
      ['/jobs/nope/resume', 'unknown_job'],
      ['/jobs/nope/run', 'unknown_job'],
      ['/cursors/orders:nothing/reset', 'cursor_not_found'],
      ['/dead-letters/987654/retry', 'dead_letter_not_found'],
      ['/dead-letters/abc/discard', 'dead_letter_not_found'],
    ];
    for (const [path, code] of cases) {
      const response = await call('POST', path);
      expect({ path, status: response.status }).toEqual({ path, status: 404 });
      expect(await response.json()).toMatchObject({ error: code });
    }
    expect(commandCount()).toBe(before);
  });

  it('answers every outcome code of a finished command with its documented status', async () => {
    const { commands } = daemon.env.state;
    for (const [code, status] of Object.entries(STATUS_BY_CODE)) {
      // Recorded as a daemon records a refusal; the command names a job of another daemon, so none here takes it.
      const id = daemon.env.state.transaction(() => {
        const queued = commands.enqueue({
          kind: 'jobs.resume',
          args: { job: code },
          fingerprint: 'elsewhere',
          requestedBy: 'test',
        });
        commands.fail(queued, code, `failed with ${code}`);
        return queued;
      });
      const response = await call('GET', `/commands/${id}`);
      expect({ code, status: response.status }).toEqual({ code, status });
      expect(await response.json()).toMatchObject({ command: id, status: 'failed', error: code });
    }
  });

  it('ends `runs` quietly when its reader stops reading', { timeout: 30_000 }, async () => {
    const { runs } = daemon.env.state;
    daemon.env.state.transaction(() => {
      for (let i = 0; i < 1000; i++)
        runs.finish(runs.start('orders', 'schedule'), 'ok', { fetched: i }, null);
    });
    const config = join(world.dir, 'supply-sync-0.yaml');
    const child = spawn(
      process.execPath,
      [compiledEntry(join(ROOT, 'src/cli/main.ts')), 'runs', '--json', '--limit', '1000', '--config', config],
      {
        cwd: ROOT,
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    let chunks = 0;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // `head -1`: read the first chunk, then close the pipe while the CLI still has lines to write.
    child.stdout.once('data', () => {
      chunks += 1;
      child.stdout.destroy();
    });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(chunks).toBe(1);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
