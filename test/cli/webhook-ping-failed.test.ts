/**
 * `webhooks test` when the ping does not get through, as a user meets it: the CLI in a child process, the sandbox
 * over HTTP delivering the ping to the registered URL. Nothing listening there, or a daemon that refuses the
 * signature: the attempt's reason is printed (not fetch's bare "fetch failed"), and the error says what to do next.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../src/sandbox/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { runCli, STACK_LINE } from './run-cli.js';

/** A port nothing listens on: taken from the system, then let go. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('webhooks test when the ping fails', () => {
  let sandbox: RunningSandbox;
  let refusing: Server;
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-ping-failed-'));
  const configFile = join(dir, 'supply-sync.yaml');

  beforeAll(async () => {
    sandbox = await startSandbox({ allowHttpWebhooks: true });
    // Answers as the daemon's receiver does when the signing secret is not one it holds.
    refusing = createServer((req, res) => {
      req.resume();
      req.on('end', () =>
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"signature_mismatch"}'),
      );
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    openStateStore({ file: join(dir, 'state.db'), clock: systemClock }).close();
    writeFileSync(
      configFile,
      [
        'api:',
        `  base_url: ${sandbox.baseUrl}`,
        `  api_key: ${sandbox.keys.supplier}`,
        'state:',
        '  path: state.db',
        '',
      ].join('\n'),
    );
  }, 60_000);

  afterAll(async () => {
    await new Promise<void>((resolve) => refusing.close(() => resolve()));
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (...args: string[]) => runCli([...args, '--config', configFile]);

  it(
    'names the unreachable URL and its socket error, then says what to check',
    { timeout: 60_000 },
    async () => {
      const url = `http://127.0.0.1:${await closedPort()}/webhooks`;
      const registered = await cli('webhooks', 'register', '--url', url, '--events', 'order.created');
      expect(registered).toMatchObject({ code: 0, stderr: '' });

      const pinged = await cli('webhooks', 'test');
      expect(pinged.code).toBe(1);
      expect(pinged.stdout).toContain(
        `ping failed: endpoint answered nothing (could not reach ${url}: ECONNREFUSED (connect ECONNREFUSED`,
      );
      expect(pinged.stdout).not.toContain('fetch failed');
      expect(pinged.stderr).toContain('the API reached nothing at the registered URL');
      expect(pinged.stderr).toContain('(/webhooks, server.webhook_path)');
      expect(pinged.stderr).toContain('(webhook_test_failed)');
      expect(pinged.stderr).not.toMatch(STACK_LINE);
    },
  );

  it(
    'tells a refused signature from other answers and says to register again',
    { timeout: 60_000 },
    async () => {
      const url = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/webhooks`;
      const registered = await cli('webhooks', 'register', '--url', url, '--events', 'order.created');
      expect(registered).toMatchObject({ code: 0, stderr: '' });
      // The first test's endpoint is registered too: this one is named.
      const endpoint = /created webhook endpoint (\S+) for/.exec(registered.stdout)?.[1] ?? 'none printed';

      const pinged = await cli('webhooks', 'test', endpoint);
      expect(pinged.code).toBe(1);
      expect(pinged.stdout).toContain('ping failed: endpoint answered 400 (endpoint answered 400)');
      expect(pinged.stderr).toContain(
        "the endpoint answered 400 (signature_mismatch): the daemon does not hold the endpoint's current signing secret",
      );
      expect(pinged.stderr).toContain('supply-sync webhooks register --url');
    },
  );
});
