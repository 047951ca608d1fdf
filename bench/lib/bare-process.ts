/**
 * The bare baseline server in a process of its own, compiled to plain JavaScript (bundle-child.ts) so that, like
 * the compiled daemon it is compared with, it runs under plain `node` without the TypeScript loader.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bundleChild } from './bundle-child.js';

const CHILD = fileURLToPath(new URL('./bare-child.ts', import.meta.url));

export interface BareProcess {
  origin: string;
  pid: number;
  close(): Promise<void>;
}

export async function startBareProcess(): Promise<BareProcess> {
  const entry = await bundleChild(CHILD);
  const child = spawn(process.execPath, [entry], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the bare server did not start: ${stderr.slice(0, 500)}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the bare server exited with ${String(code)}: ${stderr.slice(0, 500)}`));
    });
    createInterface({ input: child.stdout }).once('line', (line) => {
      clearTimeout(timer);
      const { origin } = JSON.parse(line) as { origin: string };
      resolve({ origin, pid: child.pid ?? -1, close });
    });
  });
}
