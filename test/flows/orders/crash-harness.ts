/** Starting, watching and killing the crash tests' child process (test/flows/orders/child.ts). */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { compiledEntry } from '../../support/compiled-entry.js';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface ChildRun {
  child: ChildProcess;
  ready: Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>;
}

/** Starts the orders crash child, or another child entry (a .ts file) taking the same JSON settings argument. */
export function startChild(settings: Record<string, unknown>, entry: string = CHILD): ChildRun {
  const child = spawn(process.execPath, [compiledEntry(entry), JSON.stringify(settings)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (output.includes('ready')) markReady();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string }>(
    (resolve) => {
      child.on('close', (code, signal) => {
        markReady();
        resolve({ code, signal, output });
      });
    },
  );
  return { child, ready, exited };
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
