/**
 * Two instances on one PostgreSQL state derive the same history: each event is queued once, whichever instance
 * derives it first (as after a failover, when the new leader derives what the old one had already queued).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, type JobConfig, type NotificationsConfig } from '../../src/config/index.js';
import { Notifier } from '../../src/notify/index.js';
import type { StateStore } from '../../src/state/index.js';
import { postgresHarness } from '../state/backends.js';
import { FakeClock } from '../state/support.js';

const backend = await postgresHarness();

const CONFIG = parseConfig(
  '/etc/supply-sync/config.yaml',
  `api:
  sandbox: embedded
notifications:
  channels:
    it:
      type: webhook
      url: https://hooks.example.com/x
  rules:
    - events: [job_failed, job_recovered, dead_letters]
      channels: [it]
`,
).config.notifications as NotificationsConfig;

const title = 'notifications on a shared PostgreSQL state';
describe.skipIf(backend.skipReason !== null)(
  backend.skipReason === null ? title : `${title} (skipped: ${backend.skipReason})`,
  () => {
    let clock: FakeClock;
    let a: StateStore;
    let b: StateStore;
    const notifier = (state: StateStore, instance: string) =>
      new Notifier({
        state,
        config: CONFIG,
        origin: { instance, config: '/etc/supply-sync/config.yaml' },
        timezone: 'UTC',
        jobs: new Map([['orders', { flow: 'orders' } as unknown as JobConfig]]),
        watchingSince: clock.now(),
        scrub: (text) => text,
      });

    beforeEach(async () => {
      clock = new FakeClock();
      await backend.create();
      a = backend.open(clock);
      b = backend.open(clock);
    });
    afterEach(async () => {
      a.close();
      b.close();
      await backend.dispose();
    });

    it('queues each event once, whichever instance derives it', () => {
      const first = notifier(a, 'a');
      const second = notifier(b, 'b');
      first.derive(clock.now());
      for (const outcome of ['failed', 'ok', 'failed'] as const) {
        const run = a.runs.start('orders', 'schedule');
        a.runs.finish(run, outcome, {}, outcome === 'failed' ? 'boom' : null);
      }
      clock.advance(1000);
      a.deadLetters.add('orders', 'o-1', {}, 'unknown item');
      expect(first.derive(clock.now())).toBe(4);
      // The second instance (say, after a failover) derives the same history: nothing new.
      expect(second.derive(clock.now())).toBe(0);
      const run = b.runs.start('orders', 'schedule');
      b.runs.finish(run, 'ok', {}, null);
      expect(second.derive(clock.now())).toBe(1);
      expect(first.derive(clock.now())).toBe(0);
      // Whoever queued a message, its Message-ID names the shared state, so a resend by the next leader matches.
      const domains = a.notifications
        .list()
        .map((n) => (JSON.parse(n.message) as { messageId: string }).messageId.split('@')[1]);
      expect(new Set(domains).size).toBe(1);
      const keys = a.notifications
        .list()
        .map((n) => n.dedupKey.replace(/^dead_letters:orders:\d+$/, 'dead_letters:orders'));
      // Two failure episodes, each told once and ended once, whichever instance saw what.
      expect(keys.sort()).toEqual([
        'dead_letters:orders',
        'episode:1',
        'episode:1:recovered',
        'episode:2',
        'episode:2:recovered',
      ]);
    });
  },
);
