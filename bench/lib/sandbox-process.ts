/** A sandbox in a child process, so the code under measurement and the sandbox do not share one core. */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import {
  sandboxControl,
  type SandboxControl,
  type SandboxKeys,
  type SandboxOptions,
} from '../../src/sandbox/index.js';

const CHILD = fileURLToPath(new URL('./sandbox-child.ts', import.meta.url));

export interface SandboxProcess {
  baseUrl: string;
  controlUrl: string;
  origin: string;
  keys: SandboxKeys;
  control: SandboxControl;
  pid: number;
  close(): Promise<void>;
}

export function startSandboxProcess(
  options: Pick<SandboxOptions, 'rateLimitOverrides' | 'allowHttpWebhooks' | 'timeScale'> = {
    rateLimitOverrides: { all: { per_minute: 1_000_000_000 } },
  },
): Promise<SandboxProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, JSON.stringify(options)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
  };
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout });
    const startTimer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox process did not start: ${stderr.slice(0, 500)}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(startTimer);
      reject(new Error(`sandbox process exited with ${String(code)}: ${stderr.slice(0, 500)}`));
    });
    lines.once('line', (line) => {
      clearTimeout(startTimer);
      const info = JSON.parse(line) as Pick<SandboxProcess, 'baseUrl' | 'controlUrl' | 'origin' | 'keys'>;
      resolve({ ...info, control: sandboxControl(info.controlUrl), pid: child.pid ?? -1, close });
    });
  });
}
