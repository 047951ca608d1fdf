/**
 * `supply-sync demo` (what `npm start` runs): the daemon with config/demo.yaml against the embedded sandbox,
 * plus simulated activity on both sides: buyers place orders and approve journal lines in the sandbox, and the
 * demo ERP's users confirm orders, issue invoices and change prices.
 */
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { loadConfig, type LoadedConfig } from '../../config/index.js';
import { sandboxControl } from '../../sandbox/harness/client.js';
import { openDemoErp, simulateErpActivity } from '../../../connectors/sql/demo-erp/index.js';
import { dropDemoExpenses } from '../../../connectors/csv-expenses/index.js';
import { buildPluginRegistry } from '../plugins/builtin.js';
import { packageRoot } from '../package/package-root.js';
import { runDaemon, type Daemon } from './run-daemon.js';

export interface DemoOptions {
  configPath?: string;
  port?: number;
  /** Overrides server.host: 0.0.0.0 lets other machines (or a container's host) reach the demo. */
  host?: string;
  /** Stop by itself after this long (tests); runs until stopped otherwise. */
  durationMs?: number;
  /** Sandbox actions per second (orders sent, documents received, journal lines approved...). */
  activityPerSecond?: number;
  /** How often the demo ERP's users do something. */
  erpActivityEveryMs?: number;
  print?: (line: string) => void;
  signal?: AbortSignal;
}

/** What the demo ERP's users do at each tick: through their own connection to the ERP file, beside the jobs'. */
export const DEMO_ERP_ACTIVITY = { documents: 1, confirmations: 1, catalogChanges: 2 } as const;

export function defaultDemoConfigPath(): string {
  return resolve(packageRoot(), 'config', 'demo.yaml');
}

export async function runDemo(options: DemoOptions = {}): Promise<void> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  // Listening from the first moment: a SIGTERM during the start (`docker stop` right after `docker run`) stops the
  // demo once it is up instead of being lost; as a container's PID 1, Node would otherwise ignore it.
  const stopped = waitForStop(options);
  const registry = buildPluginRegistry();
  const loaded = withHost(
    loadConfig(options.configPath ?? defaultDemoConfigPath(), { registry }),
    options.host,
  );
  // The expenses drop folder exists before the daemon checks its connectors.
  for (const dir of expenseFolders(loaded.config.connectors, resolve(loaded.file, '..'))) {
    await mkdir(dir, { recursive: true });
  }
  const daemon = await runDaemon({
    loaded,
    registry,
    ...(options.port === undefined ? {} : { port: options.port }),
  });
  const timers: NodeJS.Timeout[] = [];
  try {
    const lines = await startActivity(daemon, options, timers);
    print('');
    print('supply-sync demo is running');
    print(`  status page      ${daemon.opsUrl}/status`);
    print(`  metrics          ${daemon.opsUrl}/metrics`);
    print(`  API (sandbox)    ${daemon.env.endpoint.label}`);
    for (const line of lines) print(`  ${line}`);
    print(`  jobs             ${[...daemon.env.jobs.keys()].join(', ')}`);
    print('Press Ctrl+C to stop.');
    print('');
    await stopped;
  } finally {
    for (const timer of timers) clearInterval(timer);
    await daemon.stop(10_000);
  }
}

async function startActivity(
  daemon: Daemon,
  options: DemoOptions,
  timers: NodeJS.Timeout[],
): Promise<string[]> {
  const lines: string[] = [];
  const { config } = daemon.env.loaded;
  const baseDir = resolve(daemon.env.loaded.file, '..');
  if (daemon.env.endpoint.controlUrl !== undefined) {
    await sandboxControl(daemon.env.endpoint.controlUrl).simulate({
      actions_per_second: options.activityPerSecond ?? 0.5,
    });
    lines.push(`sandbox control  ${daemon.env.endpoint.controlUrl}/state`);
  }
  for (const [name, block] of Object.entries(config.connectors)) {
    if (block.type === 'demo-erp' && typeof block['data_dir'] === 'string') {
      const erp = await openDemoErp(resolve(baseDir, block['data_dir']));
      lines.push(`demo ERP (${name})  ${erp.file}`);
      const tick = (): void => {
        simulateErpActivity(erp, { clock: daemon.env.clock, ...DEMO_ERP_ACTIVITY }).catch((error: unknown) =>
          daemon.env.logger.warn({ err: error }, 'demo ERP activity failed'),
        );
      };
      timers.push(setInterval(tick, options.erpActivityEveryMs ?? 20_000));
    }
    if (block.type === 'csv-expenses' && typeof block['in_dir'] === 'string') {
      const dir = resolve(baseDir, block['in_dir']);
      lines.push(`expenses drop (${name})  ${dir}`);
      const drop = (): void => {
        dropDemoExpenses(dir, new Date(daemon.env.clock.now())).catch((error: unknown) =>
          daemon.env.logger.warn({ err: error }, 'demo expenses drop failed'),
        );
      };
      drop();
      timers.push(setInterval(drop, options.erpActivityEveryMs ?? 20_000));
    }
    for (const key of ['import_dir', 'out_dir', 'output_dir']) {
      const dir = block[key];
      if (typeof dir === 'string') lines.push(`files (${name})  ${resolve(baseDir, dir)}`);
    }
  }
  return lines;
}

function withHost(loaded: LoadedConfig, host: string | undefined): LoadedConfig {
  if (host === undefined) return loaded;
  return { ...loaded, config: { ...loaded.config, server: { ...loaded.config.server, host } } };
}

/** The drop folders of the config's csv-expenses connectors. */
function expenseFolders(connectors: Record<string, Record<string, unknown>>, baseDir: string): string[] {
  return Object.values(connectors)
    .filter((block) => block['type'] === 'csv-expenses' && typeof block['in_dir'] === 'string')
    .map((block) => resolve(baseDir, String(block['in_dir'])));
}

function waitForStop(options: DemoOptions): Promise<void> {
  return new Promise((resolveStop) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolveStop();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
    options.signal?.addEventListener('abort', done, { once: true });
    if (options.durationMs !== undefined) setTimeout(done, options.durationMs).unref();
  });
}
