/** Elector child processes (elector-child.ts) and the JSON lines they print, with the time each line arrived. */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { compiledEntry } from '../../support/compiled-entry.js';

const CHILD = path.join(import.meta.dirname, 'elector-child.ts');
/** The ERP order writer (erp-writer-child.ts), started through the same class. */
export const ERP_WRITER_CHILD = path.join(import.meta.dirname, 'erp-writer-child.ts');
/** The OData order writer (odata-writer-child.ts). */
export const ODATA_WRITER_CHILD = path.join(import.meta.dirname, 'odata-writer-child.ts');
/** The catalog leader (catalog-leader-child.ts). */
export const CATALOG_LEADER_CHILD = path.join(import.meta.dirname, 'catalog-leader-child.ts');

export interface ChildEvent {
  readonly event:
    | 'started'
    | 'elected'
    | 'lost'
    | 'open'
    | 'fenced'
    | 'write-error'
    | 'erp-writing'
    | 'erp-committed'
    | 'refused'
    | 'erp-error'
    | 'run'
    | 'run-error';
  readonly counts?: Readonly<Record<string, number>>;
  readonly outcome?: string;
  readonly ref?: string;
  readonly instance: string;
  readonly epoch?: number;
  readonly code?: string;
  readonly reason?: string;
  readonly message?: string;
  /** performance.now() in this process when the line arrived. */
  readonly receivedAt: number;
}

export interface ChildSettings {
  readonly url: string;
  readonly leaseMs: number;
  readonly renewIntervalMs: number;
  readonly pollIntervalMs: number;
  readonly writeEveryMs: number;
  readonly holdMs: number;
  readonly statementMs?: number;
}

export class ChildElector {
  readonly instance: string;
  readonly events: ChildEvent[] = [];
  readonly #process: ChildProcess;
  readonly #stderr: string[] = [];
  readonly #exited: Promise<void>;
  #waiters: (() => void)[] = [];

  constructor(instance: string, settings: ChildSettings | Readonly<Record<string, unknown>>, entry = CHILD) {
    this.instance = instance;
    this.#process = spawn(
      process.execPath,
      [compiledEntry(entry), JSON.stringify({ ...settings, instance })],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    createInterface({ input: this.#process.stdout! }).on('line', (line) => {
      this.events.push({
        ...(JSON.parse(line) as Omit<ChildEvent, 'receivedAt'>),
        receivedAt: performance.now(),
      });
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.#process.stderr!.on('data', (chunk: Buffer) => this.#stderr.push(chunk.toString()));
    this.#exited = new Promise((resolve) => this.#process.once('exit', () => resolve()));
  }

  signal(signal: NodeJS.Signals): void {
    this.#process.kill(signal);
  }

  /** The first event after index `from` that matches; rejects after `timeoutMs`, with the child's stderr. */
  async next(
    what: string,
    match: (event: ChildEvent) => boolean,
    timeoutMs: number,
    from = 0,
  ): Promise<ChildEvent> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find(match);
      if (found !== undefined) return found;
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new Error(
          `${this.instance}: no ${what} within ${timeoutMs}ms; events ${JSON.stringify(this.events)}; stderr ${this.#stderr.join('')}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** SIGTERM (graceful: the lease is released), then SIGKILL if it lingers; SIGCONT first in case it is stopped. */
  async end(): Promise<void> {
    if (this.#process.exitCode !== null || this.#process.signalCode !== null) return;
    this.#process.kill('SIGCONT');
    this.#process.kill('SIGTERM');
    const timer = setTimeout(() => this.#process.kill('SIGKILL'), 5_000);
    await this.#exited;
    clearTimeout(timer);
  }

  async exited(): Promise<void> {
    await this.#exited;
  }
}
