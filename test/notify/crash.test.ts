/**
 * Exactly once across kill -9: the real daemon (compiled CLI, its own process) sends a queue of notifications to a
 * real SMTP server and an HTTPS receiver, is killed with SIGKILL while sending, and started again. Every message must
 * arrive, and a message may arrive twice only if the state shows it was handed to its server when the kill came (the
 * documented at-least-once window), then with the same Message-ID / idempotency key so the repeat is recognisable.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/index.js';
import { systemClock } from '../../src/shared/clock.js';
import { killAndWait, spawnCli, type CliChild } from '../crash/harness/child.js';
import { tempDir } from '../state/support.js';
import {
  makeTestCa,
  SMTP_PASSWORD,
  SMTP_USER,
  startSmtpReceiver,
  startWebhookReceiver,
  WEBHOOK_TOKEN,
  type SmtpReceiver,
  type WebhookReceiver,
} from './receivers.js';

const FAILED_JOBS = 20;
/** A guard on waiting for deliveries, not a measure: past it the test fails saying what had arrived. */
const GUARD_MS = 120_000;

async function until(condition: () => boolean, what: () => string, child: CliChild): Promise<void> {
  const guard = Date.now() + GUARD_MS;
  while (!condition()) {
    if (!child.isRunning())
      throw new Error(`the daemon exited while waiting for ${what()}:\n${child.output()}`);
    if (Date.now() > guard) throw new Error(`guard passed waiting for ${what()}:\n${child.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('notifications across kill -9 of the daemon', () => {
  const tmp = tempDir('supply-sync-notify-crash-');
  const ca = makeTestCa('Notify Crash CA');
  let smtp: SmtpReceiver | undefined;
  let hook: WebhookReceiver | undefined;
  let child: CliChild | undefined;

  afterAll(async () => {
    await killAndWait(child);
    await smtp?.close();
    await hook?.close();
    tmp.remove();
  });

  it(
    'delivers every queued message after the restart, twice only where the kill cut a send off',
    { timeout: 300_000 },
    async () => {
      smtp = await startSmtpReceiver(ca, 0, { answerDelayMs: 150 });
      hook = await startWebhookReceiver(ca);
      const stateFile = path.join(tmp.dir, 'state.db');
      const seed = openStateStore({ file: stateFile, clock: systemClock, lock: false });
      for (let n = 1; n <= FAILED_JOBS; n++) {
        const id = seed.runs.start(`job-${n}`, 'schedule');
        seed.runs.finish(id, 'failed', {}, `error number ${n}: הספק לא ענה`);
      }
      // Notifications start reading history from before these runs, as if they had failed under a running daemon.
      seed.kv.set('notifications', 'runs_after', 0);
      seed.close();
      const configFile = path.join(tmp.dir, 'config.yaml');
      writeFileSync(
        configFile,
        `api:
  sandbox: embedded
state:
  path: ${stateFile}
notifications:
  instance: crash-test
  poll_interval: 100ms
  channels:
    mail:
      type: email
      host: 127.0.0.1
      port: ${smtp.port}
      username: ${SMTP_USER}
      password: \${NOTIFY_SMTP_PASSWORD}
      ca_file: ${ca.certFile}
      from: supply-sync@example.com
      to: [it@example.com]
    hook:
      type: webhook
      preset: plain
      url: \${NOTIFY_HOOK_URL}
      ca_file: ${ca.certFile}
  rules:
    - events: [job_failed]
      channels: [mail, hook]
`,
      );
      const env = { NOTIFY_SMTP_PASSWORD: SMTP_PASSWORD, NOTIFY_HOOK_URL: hook.url };
      const mails = smtp.mails;
      const bodies = hook.bodies;

      child = spawnCli(['run', '--config', configFile, '--port', '0', '--no-catch-up'], env);
      expect(await child.ready, child.output()).not.toBeNull();
      await until(
        () => mails.length >= 3,
        () => `3 mails (got ${mails.length})`,
        child,
      );
      child.kill('SIGKILL');
      const killed = await child.exited;
      expect(killed.signal).toBe('SIGKILL');
      const firstOutput = child.output();

      const afterKill = openStateStore({ file: stateFile, clock: systemClock, lock: false });
      const cutOff = new Set(
        afterKill.notifications
          .list(undefined, 1000)
          .filter((n) => n.status === 'sending')
          .map((n) => `${n.channel}:${n.dedupKey}`),
      );
      const pendingAtKill = afterKill.notifications
        .list(undefined, 1000)
        .filter((n) => n.status !== 'sent').length;
      afterKill.close();
      expect(pendingAtKill, 'the kill must land with messages still queued').toBeGreaterThan(0);

      child = spawnCli(['run', '--config', configFile, '--port', '0', '--no-catch-up'], env);
      expect(await child.ready, child.output()).not.toBeNull();
      const distinctMails = () => new Set(mails.map((m) => m.parsed.messageId)).size;
      const distinctBodies = () => new Set(bodies.map((b) => (b.body as { id: string }).id)).size;
      await until(
        () => distinctMails() === FAILED_JOBS && distinctBodies() === FAILED_JOBS,
        () => `${FAILED_JOBS} distinct mails and webhooks (got ${distinctMails()} and ${distinctBodies()})`,
        child,
      );
      child.kill('SIGTERM');
      await child.exited;

      const final = openStateStore({ file: stateFile, clock: systemClock, lock: false });
      const rows = final.notifications.list(undefined, 1000);
      final.close();
      expect(rows.filter((n) => n.status === 'sent')).toHaveLength(2 * FAILED_JOBS);
      const byKey = new Map(rows.map((n) => [`${n.channel}:${n.dedupKey}`, n]));
      // Any message that arrived twice was one the kill caught between handing it over and marking it sent.
      const repeated = [
        ...countBy(mails.map((m) => m.parsed.messageId ?? '')),
        ...countBy(bodies.map((b) => (b.body as { id: string }).id)),
      ].filter(([, count]) => count > 1);
      expect(repeated.length).toBeLessThanOrEqual(cutOff.size);
      expect(cutOff.size).toBeLessThanOrEqual(2); // at most one send in flight per channel
      expect(byKey.size).toBe(2 * FAILED_JOBS);
      const subjects = new Set(mails.map((m) => m.parsed.subject));
      for (let n = 1; n <= FAILED_JOBS; n++)
        expect(subjects).toContain(`[supply-sync crash-test] Job job-${n} failed`);
      const seen = JSON.stringify([
        firstOutput,
        child.output(),
        rows,
        mails.map((m) => m.raw),
        bodies.map((b) => b.body),
      ]);
      expect(seen).not.toContain(SMTP_PASSWORD);
      expect(seen).not.toContain(WEBHOOK_TOKEN);
    },
  );
});

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
