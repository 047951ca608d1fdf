/** `supply-sync sandbox [--port N] [--state FILE] [--keys-out FILE] [--time-scale X] [--allow-http-webhooks]`. */
import { writeFileSync } from 'node:fs';
import { composeSandbox } from './sandbox.js';
import type { RunningSandbox, SandboxKeyInfo, SandboxOptions } from './options.js';

export interface SandboxCliOptions {
  port?: number | string;
  state?: string;
  keysOut?: string;
  timeScale?: number | string;
  allowHttpWebhooks?: boolean;
  seed?: string;
  /** Where to print; defaults to process.stdout. */
  write?: (text: string) => void;
  /** Close on SIGINT/SIGTERM (default true). */
  handleSignals?: boolean;
}

function toNumber(
  raw: number | string | undefined,
  name: string,
  check: (n: number) => boolean,
): number | undefined {
  if (raw === undefined) return undefined;
  const value = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isFinite(value) || !check(value))
    throw new Error(`--${name}: expected a valid number, got "${String(raw)}"`);
  return value;
}

export async function runSandboxCli(options: SandboxCliOptions = {}): Promise<RunningSandbox> {
  const write = options.write ?? ((text: string) => void process.stdout.write(text));
  const sandboxOptions: SandboxOptions = {};
  const port = toNumber(options.port, 'port', (n) => Number.isInteger(n) && n >= 0 && n <= 65535);
  const timeScale = toNumber(options.timeScale, 'time-scale', (n) => n > 0);
  if (port !== undefined) sandboxOptions.port = port;
  if (timeScale !== undefined) sandboxOptions.timeScale = timeScale;
  if (options.state !== undefined) sandboxOptions.statePath = options.state;
  if (options.allowHttpWebhooks) sandboxOptions.allowHttpWebhooks = true;
  if (options.seed !== undefined) sandboxOptions.seed = options.seed;
  const sandbox = await composeSandbox(sandboxOptions);
  if (options.keysOut !== undefined) {
    writeFileSync(
      options.keysOut,
      `${JSON.stringify({ base_url: sandbox.baseUrl, keys: sandbox.clients }, null, 2)}\n`,
      {
        mode: 0o600,
      },
    );
  }
  const width = Math.max(...sandbox.clients.map((c) => c.purpose.length));
  write(`Sandbox listening at ${sandbox.baseUrl}\n`);
  write(`Control plane: ${sandbox.controlUrl}/ (loopback only)\n`);
  const line = (client: SandboxKeyInfo) =>
    write(`  ${client.purpose.padEnd(width)}  ${client.key}  (${client.client_id}, plan ${client.plan})\n`);
  // Keys of accounts created through POST /_sandbox/accounts (kept in a state file) are named `<type>:<account>`.
  const created = sandbox.clients.filter((client) => client.purpose.includes(':'));
  write(`State: ${options.state ?? 'in memory'}\n\nDemo keys (sandbox only):\n`);
  sandbox.clients.filter((client) => !created.includes(client)).forEach(line);
  if (created.length > 0) write('\nKeys of the accounts created through /_sandbox/accounts:\n');
  created.forEach(line);
  if (options.keysOut !== undefined) write(`\nKeys written to ${options.keysOut}\n`);
  if (options.handleSignals ?? true) {
    const stop = () => {
      void sandbox.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  return sandbox;
}
