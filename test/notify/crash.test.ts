/**
 * Exactly once across kill -9: the real daemon (compiled CLI, its own process) sends a queue of notifications to a
 * real SMTP server and an HTTPS receiver, is killed with SIGKILL while sending, and started again. Every message must
 * arrive, and a message may arrive twice only if the state shows it was handed to its server when the kill came (the
 * documented at-least-once window), then with the same Message-ID / idempotency key so the repeat is recognisable.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import path from 'node:path';
import { createDomain } from '../../src/sandbox/domain/index.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { afterAll, describe, expect, it } from 'vitest';
import { openStateStore, type QueuedNotification } from '../../src/state/index.js';
import { idempotencyKey } from '../../src/notify/webhook-channel.js';
import { systemClock } from '../../src/shared/clock.js';
import { killAndWait, spawnCli, type CliChild } from '../crash/harness/child.js';
import { sandboxLines } from '../flows/journal-export/harness.js';
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

async function until(
  condition: () => boolean,
  what: () => string,
  child: CliChild,
  guardMs = GUARD_MS,
): Promise<void> {
  const guard = Date.now() + guardMs;
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
      // One episode after another: each job fails, then runs again; each episode is told and ended (2 messages).
      for (let n = 1; n <= FAILED_JOBS / 2; n++) {
        const id = seed.runs.start(`job-${n}`, 'schedule');
        seed.runs.finish(id, 'failed', {}, `error number ${n}: הספק לא ענה`);
        const again = seed.runs.start(`job-${n}`, 'schedule');
        seed.runs.finish(again, 'ok', {}, null);
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
    - events: [job_failed, job_recovered]
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
      // What each message cut off by the kill (handed to its server, not yet marked sent) is recognised by.
      const cutOff = new Set(
        afterKill.notifications
          .list(undefined, 1000)
          .filter((n) => n.status === 'sending')
          .map(deliveryKey),
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
      // Each queued message arrived under its own key (the mail's Message-ID, the webhook's idempotency key)...
      const arrived = [
        ...mails.map((m) => `mail ${m.parsed.messageId ?? ''}`),
        ...bodies.map((b) => `hook ${(b.body as { id: string }).id}`),
      ];
      expect(new Set(arrived)).toEqual(new Set(rows.map(deliveryKey)));
      // ...and a message that arrived twice is one the kill caught between handing it over and marking it sent.
      const repeated = [...countBy(arrived)].filter(([, count]) => count > 1).map(([key]) => key);
      expect(repeated.filter((key) => !cutOff.has(key))).toEqual([]);
      expect(cutOff.size).toBeLessThanOrEqual(2); // at most one send in flight per channel
      const subjects = new Set(mails.map((m) => m.parsed.subject));
      for (let n = 1; n <= FAILED_JOBS / 2; n++) {
        expect(subjects).toContain(`[supply-sync crash-test] Job job-${n} failed`);
        expect([...subjects].some((subject) => subject?.endsWith(`: Job job-${n} failed`))).toBe(true);
      }
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

/** How a queued message is recognised where it arrives: the mail's Message-ID, the webhook body's id. */
function deliveryKey(row: QueuedNotification): string {
  if (row.channel === 'mail') return `mail ${(JSON.parse(row.message) as { messageId: string }).messageId}`;
  return `hook ${idempotencyKey(row.dedupKey)}`;
}

function countBy(values: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

/** Accepts SMTP connections and never greets: nothing handed to it is ever delivered. */
async function silentSmtp(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The events of real runs: a journal export against the sandbox fails (its import folder is a file), then runs
 * again and files documents whose account is not mapped. The failure, the recovery and the dead letters are queued
 * by the daemon while its mail server never greets, so nothing has been delivered when it is killed; after the
 * restart each arrives exactly once. No repeat is possible here (the server never accepted anything before the
 * kill), so the Message-IDs received must be those of the queued rows, each once.
 */
describe('events of real job runs across kill -9 of the daemon', () => {
  const tmp = tempDir('supply-sync-notify-runs-crash-');
  const ca = makeTestCa('Notify Runs Crash CA');
  let sandbox: Awaited<ReturnType<typeof startSandbox>> | undefined;
  let silent: Awaited<ReturnType<typeof silentSmtp>> | undefined;
  let smtp: SmtpReceiver | undefined;
  let child: CliChild | undefined;

  afterAll(async () => {
    await killAndWait(child);
    await silent?.close();
    await smtp?.close();
    await sandbox?.close();
    tmp.remove();
  });

  it(
    'delivers the failure, the recovery and the dead letters queued at the kill, each once',
    { timeout: 300_000 },
    async () => {
      sandbox = await startSandbox({ createDomain });
      await sandbox.control.action('approve_journal_lines', { count: 9 });
      const approved = (await sandboxLines(sandbox)).filter((l) => l.status === 'approved_for_export');
      const accountsOf = (doc: string) =>
        new Set(
          approved
            .filter((l) => l.document_id === doc)
            .flatMap((l) => [l.account, ...(l.counter_account === null ? [] : [l.counter_account])]),
        );
      const documents = [...new Set(approved.map((l) => l.document_id))];
      const accounts = [...new Set(documents.flatMap((d) => [...accountsOf(d)]))].sort();
      // The account fewest documents use: they are held back, the rest must be written (and can fail to be).
      const users = (a: string) => documents.filter((d) => accountsOf(d).has(a)).length;
      const missing = accounts
        .filter((a) => users(a) >= 1 && users(a) < documents.length)
        .sort((a, b) => users(a) - users(b))[0];
      expect(missing, accounts.join(', ')).toBeDefined();
      const held = documents.filter((d) => accountsOf(d).has(missing ?? '')).length;

      silent = await silentSmtp();
      const stateFile = path.join(tmp.dir, 'state.db');
      const importDir = path.join(tmp.dir, 'imports');
      const configFile = path.join(tmp.dir, 'config.yaml');
      const writeConfig = (smtpPort: number) =>
        writeFileSync(
          configFile,
          `api:
  base_url: ${sandbox?.baseUrl ?? ''}
  api_key: \${SANDBOX_KEY}
state:
  path: ${stateFile}
log:
  level: warn
timezone: Asia/Jerusalem
connectors:
  books:
    type: hashavshevet
    import_dir: ${importDir}
    long_references: last_digits
jobs:
  journal:
    flow: journal-export
    connector: books
    options:
      mappings:
        accounts: gl
mappings:
  gl:
${accounts
  .filter((a) => a !== missing)
  .map((a) => `    "${a}": "G${a}"`)
  .join('\n')}
notifications:
  instance: runs-crash-test
  poll_interval: 100ms
  channels:
    mail:
      type: email
      host: 127.0.0.1
      port: ${smtpPort}
      username: ${SMTP_USER}
      password: \${NOTIFY_SMTP_PASSWORD}
      ca_file: ${ca.certFile}
      from: supply-sync@example.com
      to: [accounts@example.com]
  rules:
    - events: [job_failed, job_recovered, dead_letters]
      channels: [mail]
`,
        );
      const env = { NOTIFY_SMTP_PASSWORD: SMTP_PASSWORD, SANDBOX_KEY: sandbox.keys.buyer };
      writeConfig(silent.port);
      child = spawnCli(['run', '--config', configFile, '--port', '0', '--no-catch-up'], env);
      expect(await child.ready, child.output()).not.toBeNull();
      const sync = async () => {
        const run = spawnCli(['sync', 'journal', '--config', configFile], env);
        await run.exited;
        return run.output();
      };
      // The import folder is a file: the export cannot write, the run fails.
      rmSync(importDir, { recursive: true, force: true });
      writeFileSync(importDir, 'not a folder');
      const failed = await sync();
      rmSync(importDir, { force: true });
      mkdirSync(importDir);
      const recovered = await sync();

      const queued = () => {
        const state = openStateStore({ file: stateFile, clock: systemClock, lock: false });
        try {
          return state.notifications.list(undefined, 100);
        } finally {
          state.close();
        }
      };
      const reasons = () => {
        const state = openStateStore({ file: stateFile, clock: systemClock, lock: false });
        try {
          return [...new Set(state.deadLetters.list({ flow: 'journal' }).map((l) => l.reason.slice(0, 80)))]
            .slice(0, 4)
            .join(' | ');
        } finally {
          state.close();
        }
      };
      await until(
        () => new Set(queued().map((n) => n.event)).size === 3,
        () =>
          `3 events queued (got ${JSON.stringify(queued().map((n) => n.event))}; runs: ${failed} / ${recovered}; ${reasons()})`,
        child,
        20_000,
      );
      child.kill('SIGKILL');
      expect((await child.exited).signal).toBe('SIGKILL');
      const atKill = queued();
      expect(atKill.map((n) => n.event).sort()).toEqual(['dead_letters', 'job_failed', 'job_recovered']);
      expect(atKill.filter((n) => n.status === 'sent')).toEqual([]);

      await silent.close();
      silent = undefined;
      smtp = await startSmtpReceiver(ca);
      writeConfig(smtp.port);
      const mails = smtp.mails;
      child = spawnCli(['run', '--config', configFile, '--port', '0', '--no-catch-up'], env);
      expect(await child.ready, child.output()).not.toBeNull();
      await until(
        () => queued().every((n) => n.status === 'sent'),
        () => `every message sent (got ${mails.length} mails)`,
        child,
      );
      child.kill('SIGTERM');
      await child.exited;
      // Every row is marked sent, and each row's message arrived once, under its own Message-ID: none was derived,
      // queued or sent twice.
      expect(mails.map((m) => `mail ${m.parsed.messageId ?? ''}`).sort()).toEqual(
        queued().map(deliveryKey).sort(),
      );

      const subjects = mails.map((m) => m.parsed.subject ?? '');
      expect(
        subjects.filter((subject) => subject === '[supply-sync runs-crash-test] Job journal failed'),
      ).toHaveLength(1);
      expect(
        subjects.filter((subject) =>
          subject.startsWith(`[supply-sync runs-crash-test] Job journal: ${held} record(s) held back (ILS `),
        ),
      ).toHaveLength(1);
      // The recovery states the episode: one failed run, and how long it lasted.
      const recovery = mails.find((m) => m.parsed.subject?.includes('Resolved after'));
      expect(recovery?.parsed.subject).toMatch(
        /^\[supply-sync runs-crash-test\] Resolved after \d+ s: Job journal failed$/,
      );
      expect(recovery?.parsed.text).toContain('after 1 failed run, over');
      expect(queued()).toHaveLength(3);
      const deadLetters = mails.find((m) => m.parsed.subject?.includes('held back'));
      expect(deadLetters?.parsed.text).toContain(
        `To fix: add ${missing ?? ''} under mappings.gl in ${configFile}, then run \`supply-sync config reload\`; the next run exports them.`,
      );
    },
  );
});
