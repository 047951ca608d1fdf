/**
 * Two `supply-sync run` processes (the compiled CLI) on one PostgreSQL state: each is one instance of a pair, named
 * through SUPPLY_SYNC_HA_INSTANCE (the config reads ha.instance from it), and asked for its role over /status.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { spawnCli, type CliChild } from '../crash/harness/child.js';

export const INSTANCE_ENV = 'SUPPLY_SYNC_HA_INSTANCE';
/** Each instance reaches PostgreSQL through a relay of its own, so that one can be cut off alone. */
export const STATE_URL_ENV = 'SUPPLY_SYNC_STATE_URL';

/** Replaces the state file of a crash world's config with the shared database and the `ha` block. */
export async function shareState(configFile: string, ha: { leaseMs: number; pollMs: number }): Promise<void> {
  const text = await readFile(configFile, 'utf8');
  const fileState = 'state:\n  path: state/supply-sync.db\n';
  if (!text.includes(fileState)) throw new Error('the crash world config has no state block to replace');
  const shared = [
    'state:',
    `  url: \${${STATE_URL_ENV}}`,
    'ha:',
    `  instance: \${${INSTANCE_ENV}}`,
    `  lease: ${ha.leaseMs}ms`,
    `  poll_interval: ${ha.pollMs}ms`,
    '',
  ].join('\n');
  await writeFile(configFile, text.replace(fileState, shared));
}

export type Role = 'leader' | 'standby';

export class Instance {
  child: CliChild | undefined;
  opsUrl = '';

  constructor(
    readonly name: string,
    private readonly configFile: string,
    /** Its state.url (through its relay). */
    private readonly stateUrl: string,
  ) {}

  /** Starts the daemon and waits until it serves; `guardMs` only bounds a start that never comes. */
  async start(guardMs: number): Promise<void> {
    const child = spawnCli(['run', '--config', this.configFile, '--port', '0'], {
      [INSTANCE_ENV]: this.name,
      [STATE_URL_ENV]: this.stateUrl,
    });
    this.child = child;
    let timer: NodeJS.Timeout | undefined;
    const guard = new Promise<'guard'>((resolve) => (timer = setTimeout(() => resolve('guard'), guardMs)));
    const url = await Promise.race([child.ready, guard]).finally(() => clearTimeout(timer));
    if (url === 'guard') {
      throw new Error(`${this.name} was not serving after ${guardMs} ms (guard):\n${child.output()}`);
    }
    if (url === null) throw new Error(`${this.name} did not start:\n${child.output()}`);
    this.opsUrl = url;
  }

  /** Its role as its /status says; null when it does not answer (killed, frozen). */
  async role(): Promise<Role | null> {
    if (this.child?.isRunning() !== true) return null;
    try {
      const response = await fetch(`${this.opsUrl}/status`, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(1_000),
      });
      const body = (await response.json()) as { role?: unknown };
      return body.role === 'leader' || body.role === 'standby' ? body.role : null;
    } catch {
      return null;
    }
  }

  /** What it says of its leadership and the end of its output, for a failure message. */
  async diagnosis(): Promise<string> {
    let said = 'no answer';
    if (this.child?.isRunning() === true) {
      try {
        const response = await fetch(`${this.opsUrl}/status`, {
          headers: { accept: 'application/json' },
          signal: AbortSignal.timeout(5_000),
        });
        const body = (await response.json()) as Record<string, unknown>;
        said = JSON.stringify({
          role: body['role'],
          leader: body['leader'],
          leadershipError: body['leadershipError'],
        });
      } catch (error) {
        said = `no answer: ${String(error)}`;
      }
    } else said = 'not running';
    const tail = (this.child?.output() ?? '').split('\n').slice(-25).join('\n');
    return `${this.name}'s /status: ${said}; its last output:\n${tail}`;
  }

  signal(signal: NodeJS.Signals): void {
    this.child?.kill(signal);
  }

  async killed(): Promise<void> {
    await this.child?.exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child === undefined || !child.isRunning()) return;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await child.exited;
  }
}

/** Polls `probe` every `pollMs` until it returns true; the milliseconds it took, or null after `ms`. */
export async function within(probe: () => Promise<boolean>, ms: number, pollMs = 25): Promise<number | null> {
  const started = performance.now();
  for (;;) {
    if (await probe()) return performance.now() - started;
    if (performance.now() - started > ms) return null;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}
