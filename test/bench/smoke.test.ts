/** Runs the benchmark runner the way `npm run bench` does, briefly, and checks what it writes (not its speed). */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunReport } from '../../bench/lib/report.js';

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'supply-sync-bench-smoke-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('npm run bench -- --quick --only sandbox-serve', () => {
  it('writes results.md and results.json with the machine, the figure and its same-run baseline', async () => {
    const markdown = join(dir, 'results.md');
    const json = join(dir, 'results.json');
    await run(
      process.execPath,
      [
        '--import',
        'tsx',
        'bench/run.ts',
        '--quick',
        '--only',
        'sandbox-serve',
        '--out',
        markdown,
        '--json-out',
        json,
      ],
      { timeout: 60_000 },
    );
    const report = JSON.parse(await readFile(json, 'utf8')) as RunReport;
    expect(report.quick).toBe(true);
    expect(report.only).toEqual(['sandbox-serve']);
    expect(report.machine.cpuCount).toBeGreaterThan(0);
    expect(report.machine.node).toBe(process.version);
    expect(report.results).toHaveLength(1);
    const [result] = report.results;
    expect(result?.name).toBe('sandbox-serve');
    if (result?.status !== 'measured') throw new Error(`not measured: ${JSON.stringify(result)}`);
    expect(result.figure.unit).toBe('pages/s');
    expect(result.figure.value).toBeGreaterThan(0);
    expect(result.baseline.value).toBeGreaterThan(0);
    expect(result.ratio).toBeCloseTo(result.figure.value / result.baseline.value, 9);

    const text = await readFile(markdown, 'utf8');
    expect(text).toContain(`- Node.js: ${process.version}`);
    expect(text).toMatch(
      /\| Sandbox serve rate \(200-item pages\) \| sandbox: .+ pages\/s \| bare node:http/,
    );
  }, 60_000);
});
