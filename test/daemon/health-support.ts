/** A daemon against a real sandbox, configured from a plain object, with its log lines captured. */
import { readFileSync } from 'node:fs';
import { localTokenFile } from '../../src/daemon/start/local-token.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { createLogger } from '../../src/log/index.js';
import { startSandbox } from '../../src/sandbox/index.js';

export type Sandbox = Awaited<ReturnType<typeof startSandbox>>;

export interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface HealthWorld {
  dir: string;
  sandbox: Sandbox;
  logs: LogLine[];
  /** Starts a daemon with the API at the sandbox and `config` merged over the basics. */
  start(config: Record<string, unknown>): Promise<Daemon>;
  readyz(daemon: Daemon): Promise<{ status: number; body: ReadyzBody }>;
  metrics(daemon: Daemon): Promise<string>;
  close(): Promise<void>;
}

export interface ReadyzBody {
  status: string;
  reasons: Array<{
    check: string;
    name?: string;
    state: string;
    detail?: string;
    code?: string;
    configKey?: string;
  }>;
}

export async function openHealthWorld(
  sandboxOptions: Parameters<typeof startSandbox>[0] = {},
): Promise<HealthWorld> {
  const dir = await mkdtemp(join(tmpdir(), 'supply-sync-health-'));
  const sandbox = await startSandbox(sandboxOptions);
  const logs: LogLine[] = [];
  const daemons: Daemon[] = [];
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n'))
        if (line !== '') logs.push(JSON.parse(line) as LogLine);
      done();
    },
  });
  return {
    dir,
    sandbox,
    logs,
    async start(config) {
      const file = join(dir, `supply-sync-${daemons.length}.yaml`);
      const base = {
        api: { base_url: sandbox.baseUrl, api_key: sandbox.keys.supplier },
        state: { path: `state-${daemons.length}/daemon.db` },
        server: { port: 0 },
        log: { level: 'info' },
      };
      // JSON is YAML: the loader reads it as any config file.
      await writeFile(file, JSON.stringify({ ...base, ...config }, null, 2));
      const registry = buildPluginRegistry();
      const daemon = await runDaemon({
        loaded: loadConfig(file, { registry }),
        registry,
        catchUp: false,
        logger: createLogger({ level: 'debug', destination: capture }),
      });
      daemons.push(daemon);
      return daemon;
    },
    async readyz(daemon) {
      // The checks are for a viewer: this host's caller shows the local token the daemon wrote.
      const token = readFileSync(localTokenFile(daemon.env.loaded.config), 'utf8').trim();
      const response = await fetch(`${daemon.opsUrl}/readyz`, {
        headers: { authorization: `Bearer ${token}` },
      });
      return { status: response.status, body: (await response.json()) as ReadyzBody };
    },
    async metrics(daemon) {
      return (await fetch(`${daemon.opsUrl}/metrics`)).text();
    },
    async close() {
      for (const daemon of daemons.splice(0)) await daemon.stop(5_000);
      await sandbox.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `probe` until it returns a value, for at most `ms`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The value of one sample in a Prometheus text exposition, or undefined. */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  }
  return undefined;
}
