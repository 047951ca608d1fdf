/**
 * `supply-sync demo --host` and SUPPLY_SYNC_DEMO_HOST (set to 0.0.0.0 in the container image, so that
 * `docker run -p 8080:8080 supply-sync demo` is reached from the host). 127.0.0.2 is a loopback address the
 * demo's default 127.0.0.1 does not answer on, and a wildcard listener does: it tells the two apart on one machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compiledEntry } from '../support/compiled-entry.js';
import { writeDemoConfig } from '../support/demo-config.js';

const ROOT = join(import.meta.dirname, '../..');

interface RunningDemo {
  readonly child: ChildProcess;
  readonly port: number;
  readonly exited: Promise<number | null>;
}

/** Starts the demo and resolves once it printed its status page's URL. */
function startDemo(args: readonly string[], env: Record<string, string>): Promise<RunningDemo> {
  const child = spawn(process.execPath, [compiledEntry(join(ROOT, 'src/cli/main.ts')), 'demo', ...args], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /status page\s+http:\/\/127\.0\.0\.1:(\d+)\/status/.exec(output);
      if (match !== null) resolve({ child, port: Number(match[1]), exited });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then((code) =>
      reject(new Error(`the demo exited with ${code} before listening:\n${output}`)),
    );
  });
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

describe('supply-sync demo --host', () => {
  let dir: string | undefined;
  const demos: RunningDemo[] = [];

  afterEach(async () => {
    for (const demo of demos.splice(0)) {
      demo.child.kill('SIGTERM');
      await demo.exited;
    }
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('listens on every interface with SUPPLY_SYNC_DEMO_HOST=0.0.0.0, and --host wins over it', async () => {
    dir = await mkdtemp(join(tmpdir(), 'supply-sync-demo-host-'));
    const config = await writeDemoConfig(dir);
    const env = { SUPPLY_SYNC_DEMO_HOST: '0.0.0.0' };

    const wildcard = await startDemo(['--config', config, '--port', '0'], env);
    demos.push(wildcard);
    expect(await answers(`http://127.0.0.2:${wildcard.port}/healthz`)).toBe(true);
    wildcard.child.kill('SIGTERM');
    expect(await wildcard.exited).toBe(0);
    demos.splice(0);

    const loopback = await startDemo(['--config', config, '--port', '0', '--host', '127.0.0.1'], env);
    demos.push(loopback);
    expect(await answers(`http://127.0.0.1:${loopback.port}/healthz`)).toBe(true);
    expect(await answers(`http://127.0.0.2:${loopback.port}/healthz`)).toBe(false);
  });
});
