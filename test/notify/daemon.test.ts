/**
 * Notifications in the real daemon (sandbox API, SQLite state, ops server): a job that fails reaches the webhook
 * receiver while the mail server hangs without ever greeting. Neither the runs (both finish and are recorded while
 * the mail send hangs) nor the webhook channel wait for it; the hanging channel shows on the status page, the
 * webhook's sends are counted, and the stop is not held up either.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, builtinPlugins, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { defineFlow } from '../../src/plugin/index.js';
import { makeTestCa, startWebhookReceiver, WEBHOOK_TOKEN, type WebhookReceiver } from './receivers.js';

/** A guard on waiting for deliveries, not a measure: past it the test fails saying what had arrived. */
const GUARD_MS = 60_000;

const failingFlow = defineFlow({
  flow: 'always-fails',
  description: 'a flow whose every run fails, for notification tests',
  side: 'supplier',
  scopes: [],
  requires: [],
  triggerEvents: [],
  options: z.strictObject({}),
  create: (job) => ({
    name: job.name,
    run: () =>
      Promise.resolve({ outcome: 'failed' as const, counts: {}, error: 'the ERP refused: הזמנה חסרה' }),
  }),
});

/** Accepts SMTP connections and never says a word: a mail server that hangs. */
async function silentSmtp(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function until(condition: () => boolean, what: () => string): Promise<void> {
  const guard = Date.now() + GUARD_MS;
  while (!condition()) {
    if (Date.now() > guard) throw new Error(`guard passed waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('notifications in the daemon', () => {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-notify-daemon-'));
  const ca = makeTestCa('Daemon Notify CA');
  let hook: WebhookReceiver;
  let smtp: Awaited<ReturnType<typeof silentSmtp>>;
  let daemon: Daemon | undefined;

  beforeAll(async () => {
    hook = await startWebhookReceiver(ca);
    smtp = await silentSmtp();
  });
  afterAll(async () => {
    await daemon?.stop(1000).catch(() => undefined);
    await hook.close();
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends a failed run to the webhook while the mail server hangs, and neither runs nor the stop wait for it', async () => {
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      `api:
  sandbox: embedded
state:
  path: state.db
server:
  port: 0
log:
  level: silent
jobs:
  broken:
    flow: always-fails
notifications:
  instance: daemon-test
  poll_interval: 50ms
  channels:
    mail:
      type: email
      host: 127.0.0.1
      port: ${smtp.port}
      security: none
      from: supply-sync@example.com
      to: [it@example.com]
    it:
      type: webhook
      preset: plain
      url: \${HOOK_URL}
      ca_file: ${ca.certFile}
  rules:
    - events: [job_failed]
      channels: [mail, it]
`,
    );
    const registry = buildPluginRegistry([...builtinPlugins(), failingFlow]);
    const loaded = loadConfig(file, { registry, env: { HOOK_URL: hook.url } });
    daemon = await runDaemon({ loaded, registry, catchUp: false });

    await daemon.runNow('broken');
    await until(
      () => smtp.connections() > 0,
      () => 'the mail channel to connect',
    );
    await daemon.runNow('broken'); // runs while the mail channel hangs
    const runs = daemon.env.state.runs.recent('broken');
    expect(runs.map((run) => run.outcome)).toEqual(['failed', 'failed']);

    // One message per failure streak. The mail send hangs; the webhook channel has its own worker and delivers
    // meanwhile (queued after the mail, it would otherwise wait behind it).
    // Marked sent once the receiver's answer is back, which may come after the receiver has the body.
    const running = daemon;
    await until(
      () => running.env.state.notifications.list('it').some((n) => n.status === 'sent'),
      () => `the webhook (got ${hook.bodies.length})`,
    );
    expect(hook.bodies).toHaveLength(1);
    expect(daemon.env.state.notifications.list('mail').map((n) => n.status)).toEqual(['sending']);
    expect(daemon.env.state.notifications.list('it').map((n) => n.status)).toEqual(['sent']);
    // The label is shared by a pair; the process that sent it is named too (on a single instance: its host).
    expect(hook.bodies[0]?.body).toMatchObject({ instance: 'daemon-test', instance_id: hostname() });
    expect((hook.bodies[0]?.body as { text: string }).text).toContain(
      `Sent by supply-sync on daemon-test (instance ${hostname()}, config ${file}).`,
    );

    const status = (await (
      await fetch(`${daemon.opsUrl}/status`, { headers: { accept: 'application/json' } })
    ).json()) as { notifications: Array<{ channel: string; pending: number }> };
    expect(status.notifications).toEqual(
      expect.arrayContaining([expect.objectContaining({ channel: 'mail', pending: 1 })]),
    );
    const metrics = await (await fetch(`${daemon.opsUrl}/metrics`)).text();
    expect(metrics).toContain('supply_sync_notifications_total{channel="it",outcome="sent"} 1');
    expect(JSON.stringify(status)).not.toContain(WEBHOOK_TOKEN);

    const stopped = await daemon.stop(5_000);
    daemon = undefined;
    expect(stopped).toEqual({ unfinished: [] });
  }, 120_000);
});
