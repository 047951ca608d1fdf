/**
 * The office's first hour, in the real daemon (sandbox API, SQLite state) with the real SMTP test server: a run by
 * hand fails on a fresh state, then the daemon starts and fails twice more. Exactly one failure email arrives, with
 * the fix and without the raw error as its text or any secret.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { loadConfig } from '../../src/config/index.js';
import { buildPluginRegistry, builtinPlugins, runDaemon, type Daemon } from '../../src/daemon/index.js';
import { defineFlow } from '../../src/plugin/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { openStateStore } from '../../src/state/index.js';
import { makeTestCa, SMTP_PASSWORD, SMTP_USER, startSmtpReceiver, type SmtpReceiver } from './receivers.js';

/** A guard on waiting for the mail, not a measure: past it the test fails saying what had arrived. */
const GUARD_MS = 60_000;
const REVOKED =
  'ApiError: GET /me failed with HTTP 401 key_revoked: API key revoked: This API key has been revoked. (request req_7)';

const revokedFlow = defineFlow({
  flow: 'revoked-key',
  description: 'a flow whose every run fails as a revoked key makes it fail',
  side: 'buyer',
  scopes: [],
  requires: [],
  triggerEvents: [],
  options: z.strictObject({}),
  create: (job) => ({
    name: job.name,
    run: () => Promise.resolve({ outcome: 'failed' as const, counts: {}, error: REVOKED }),
  }),
});

async function until(condition: () => boolean, what: () => string): Promise<void> {
  const guard = Date.now() + GUARD_MS;
  while (!condition()) {
    if (Date.now() > guard) throw new Error(`guard passed waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('a failure that began with a run by hand, in the daemon', () => {
  const dir = mkdtempSync(join(tmpdir(), 'supply-sync-notify-episode-'));
  const ca = makeTestCa('Daemon Episode CA');
  let smtp: SmtpReceiver;
  let daemon: Daemon | undefined;

  beforeAll(async () => {
    smtp = await startSmtpReceiver(ca);
  });
  afterAll(async () => {
    await daemon?.stop(1000).catch(() => undefined);
    await smtp.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends exactly one failure email, with the fix', async () => {
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
  journal:
    flow: revoked-key
notifications:
  instance: office
  poll_interval: 50ms
  channels:
    it:
      type: email
      host: 127.0.0.1
      port: ${smtp.port}
      username: ${SMTP_USER}
      password: \${SMTP_PASSWORD}
      ca_file: ${ca.certFile}
      from: supply-sync@example.com
      to: [it@example.com]
  rules:
    - events: [job_failed, job_recovered]
      channels: [it]
      after_failures: 2
`,
    );
    // `supply-sync sync journal` by hand, on a fresh state, before the daemon ever ran.
    const byHand = openStateStore({ file: join(dir, 'state.db'), clock: systemClock });
    byHand.runs.finish(byHand.runs.start('journal', 'cli'), 'failed', {}, REVOKED);
    byHand.close();

    const registry = buildPluginRegistry([...builtinPlugins(), revokedFlow]);
    const loaded = loadConfig(file, { registry, env: { SMTP_PASSWORD } });
    daemon = await runDaemon({ loaded, registry, catchUp: false });
    await daemon.runNow('journal');
    await until(
      () => smtp.mails.length > 0,
      () => 'the failure email',
    );
    await daemon.runNow('journal');
    const running = daemon;
    const lastRun = running.env.state.runs.recent('journal')[0]?.id ?? Infinity;
    // The notifications have read past the last run, and what they queued has been handed over.
    await until(
      () =>
        Number(running.env.state.kv.get('notifications', 'runs_after')) >= lastRun &&
        running.env.state.notifications.list().every((n) => n.status === 'sent'),
      () => 'the last run to be derived and the queue to drain',
    );
    await daemon.stop(5_000);
    daemon = undefined;

    expect(smtp.mails.map((mail) => mail.parsed.subject)).toEqual([
      '[supply-sync office] Job journal failed 2 runs in a row',
    ]);
    const text = smtp.mails[0]?.parsed.text ?? '';
    expect(text).toContain('What happened: The API refused the key (HTTP 401 key_revoked on GET /me).');
    expect(text).toContain('To fix: the key was revoked: create a new key in the API console and set it');
    // The setting this config uses, not both that could hold a key.
    expect(text).toContain('(api.api_key), then restart supply-sync or run the job again.');
    expect(text).not.toContain('api.api_key or api.api_key_file');
    expect(text.startsWith('ApiError')).toBe(false);
    expect(smtp.mails[0]?.raw).not.toContain(SMTP_PASSWORD);
  }, 120_000);
});
