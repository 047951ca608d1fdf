/**
 * What a crash scenario runs in: a fresh temporary folder, a sandbox this process hosts (loopback, plain-HTTP
 * webhooks allowed, retries sped up), one webhook endpoint whose URL follows the daemon across restarts, and the
 * config file the daemon child reads.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createApiClient, type ApiClient } from '../../../src/client/index.js';
import type { ApiSide } from '../../../src/contract/index.js';
import { startSandbox, type RunningSandbox } from '../../../src/sandbox/index.js';

export type { ApiSide };

export interface CrashWorld {
  readonly dir: string;
  readonly sandbox: RunningSandbox;
  /** The harness's own client, on the same key as the daemon (for webhook set-up and read-backs). */
  readonly api: ApiClient;
  readonly side: ApiSide;
  readonly configFile: string;
  readonly webhookSecret: string;
  /** Points the webhook endpoint at the daemon that just started (its port changes on every start). */
  followDaemon(opsUrl: string): Promise<void>;
  close(): Promise<void>;
}

export interface WorldOptions {
  side: ApiSide;
  /** Webhook event types the daemon's jobs react to. */
  events: readonly string[];
  /** The config file's text after the api/state/server/log blocks (connectors, jobs, mappings). */
  configBody: (dir: string) => string;
  /** Webhook retry schedule divided by this (the sandbox's timeScale). */
  timeScale?: number;
}

export const WEBHOOK_PATH = '/webhooks';

export async function openCrashWorld(options: WorldOptions): Promise<CrashWorld> {
  const dir = await mkdtemp(path.join(tmpdir(), 'supply-sync-crash-'));
  let sandbox: RunningSandbox | undefined;
  let api: ApiClient | undefined;
  try {
    sandbox = await startSandbox({ allowHttpWebhooks: true, timeScale: options.timeScale ?? 60 });
    const apiKey = options.side === 'supplier' ? sandbox.keys.supplier : sandbox.keys.buyer;
    api = createApiClient({
      baseUrl: sandbox.baseUrl,
      apiKey,
      retry: { maxAttempts: 8, baseDelayMs: 20, maxDelayMs: 200, deadlineMs: 30_000 },
      rateLimit: { perMinute: 100_000 },
    });
    // Registered before the daemon exists (a dead URL) so its secret can go into the config file.
    const endpoint = await api.webhooks.create({
      url: `http://127.0.0.1:9${WEBHOOK_PATH}`,
      events: [...options.events],
      description: 'crash harness',
    });
    const secret = endpoint.secret;
    if (typeof secret !== 'string') throw new Error('the sandbox did not return a webhook secret');
    const configFile = path.join(dir, 'supply-sync.yaml');
    await writeFile(
      configFile,
      [
        'api:',
        `  base_url: ${sandbox.baseUrl}`,
        `  api_key: ${apiKey}`,
        '  timeout: 20s',
        'state:',
        '  path: state/supply-sync.db',
        'server:',
        '  host: 127.0.0.1',
        '  port: 0',
        `  webhook_path: ${WEBHOOK_PATH}`,
        `  webhook_secrets: ['${secret}']`,
        'log:',
        '  level: warn',
        'timezone: Asia/Jerusalem',
        options.configBody(dir),
      ].join('\n'),
    );
    const owned = { sandbox, api };
    let currentUrl = '';
    return {
      dir,
      sandbox,
      api,
      side: options.side,
      configFile,
      webhookSecret: secret,
      followDaemon: async (opsUrl) => {
        const url = `${opsUrl}${WEBHOOK_PATH}`;
        if (url === currentUrl) return;
        await owned.api.webhooks.update(endpoint.id, { url, status: 'active' });
        currentUrl = url;
      },
      close: async () => {
        await owned.api.close();
        await owned.sandbox.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await api?.close();
    await sandbox?.close();
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
