/**
 * What the daemon webhook benchmark and its profile script share: a sandbox in its own process standing in for the
 * API, the real `data` of an order.created event it sends, and `supply-sync run` compiled and started in a process
 * of its own with the orders job (which order.created events trigger), its webhook secret in the config.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiClient } from '../../src/client/index.js';
import { ORDERS_TRIGGER_EVENTS } from '../../src/flows/orders/index.js';
import { listen } from './bare-servers.js';
import { buildDaemon } from './daemon-build.js';
import { startDaemonProcess, type DaemonProcess } from './daemon-process.js';
import { benchClient } from './harness.js';
import { startSandboxProcess, type SandboxProcess } from './sandbox-process.js';

export const WEBHOOK_SECRET = 'whsec_benchmark_only_not_a_real_secret';
export const WEBHOOK_PATH = '/webhooks';
export const EVENT_TYPE = 'order.created';

const daemonConfig = (api: { baseUrl: string; key: string }): string => `
api:
  base_url: ${JSON.stringify(api.baseUrl)}
  api_key: ${JSON.stringify(api.key)}
state:
  path: ./state/supply-sync.db
server:
  host: 127.0.0.1
  port: 0
  webhook_path: ${WEBHOOK_PATH}
  webhook_secrets: [${JSON.stringify(WEBHOOK_SECRET)}]
log:
  level: info
  pretty: false
connectors:
  erp:
    type: demo-erp
    data_dir: ./erp
    journal: false
jobs:
  orders:
    flow: orders
    connector: erp
    schedule: '*/5 * * * *'
`;

export interface WebhookDaemonRig {
  sandbox: SandboxProcess;
  daemon: DaemonProcess;
  /** The `data` of a real order.created event, for the sender's events. */
  eventData: Record<string, unknown>;
  stateFile: string;
  logFile: string;
  /** Stops the daemon (if still running) and the sandbox. */
  close(): Promise<void>;
}

/**
 * The `data` of a real order.created event: a bare receiver is registered for it, an order placed, and the
 * delivery's body kept, so the benchmark's events carry an order as the API sends it.
 */
async function capturedEventData(
  api: ApiClient,
  placeOrder: () => Promise<unknown>,
): Promise<Record<string, unknown>> {
  let received: (body: string) => void = () => undefined;
  const delivered = new Promise<string>((resolve) => (received = resolve));
  const capture = await listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(204).end();
      received(Buffer.concat(chunks).toString('utf8'));
    });
  });
  try {
    const endpoint = await api.webhooks.create({ url: `${capture.origin}/capture`, events: [EVENT_TYPE] });
    try {
      await placeOrder();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error(`no ${EVENT_TYPE} delivery within 15 s`)), 15_000);
      });
      const body = await Promise.race([delivered, timeout]).finally(() => clearTimeout(timer));
      const event = JSON.parse(body) as { data?: Record<string, unknown> };
      if (event.data === undefined) throw new Error(`the ${EVENT_TYPE} delivery had no data`);
      return event.data;
    } finally {
      await api.webhooks.delete(endpoint.id);
    }
  } finally {
    await capture.close();
  }
}

export async function startWebhookDaemonRig(
  dir: string,
  options: { log: (line: string) => void; nodeArgs?: readonly string[] },
): Promise<WebhookDaemonRig> {
  if (!ORDERS_TRIGGER_EVENTS.some((type) => type === EVENT_TYPE))
    throw new Error(`${EVENT_TYPE} no longer triggers the orders job`);
  const sandbox = await startSandboxProcess({
    rateLimitOverrides: { all: { per_minute: 1_000_000_000 } },
    allowHttpWebhooks: true,
  });
  try {
    const api = benchClient(sandbox.baseUrl, sandbox.keys.supplier);
    let eventData: Record<string, unknown>;
    try {
      eventData = await capturedEventData(api, () =>
        sandbox.control.action('buyer_send_order', { count: 1 }),
      );
    } finally {
      await api.close();
    }
    options.log('  compiling the daemon (esbuild, one file per module, as npm run release does)');
    const launcher = await buildDaemon();
    const config = join(dir, 'supply-sync.yaml');
    await writeFile(config, daemonConfig({ baseUrl: sandbox.baseUrl, key: sandbox.keys.supplier }));
    const logFile = join(dir, 'daemon.log');
    const daemon = await startDaemonProcess({
      launcher,
      config,
      logFile,
      ...(options.nodeArgs === undefined ? {} : { nodeArgs: options.nodeArgs }),
    });
    // The start's catch-up run of the orders job pulls the sandbox's orders first; let it finish.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return {
      sandbox,
      daemon,
      eventData,
      stateFile: join(dir, 'state', 'supply-sync.db'),
      logFile,
      close: async () => {
        await daemon.stop();
        await sandbox.close();
      },
    };
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}
