/**
 * Which events are queued, and how often: readiness and refused-key changes once per change, leadership on a new
 * leader, dead letters at most once per job and quiet period, a stale job once per stale spell. Read from the queue
 * of a real state file; delivery itself is tested in delivery.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig, type JobConfig, type NotificationsConfig } from '../../src/config/index.js';
import { hostname } from 'node:os';
import { messageOrigin, Notifier, type MessageOrigin, type Transition } from '../../src/notify/index.js';
import { originLine } from '../../src/notify/message.js';
import { openStateStore, type StateStore } from '../../src/state/index.js';
import { FakeClock, tempDir, type TempDir } from '../state/support.js';

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
    - events: [readiness_lost, readiness_restored, api_key_refused, leadership_gained, leadership_lost, job_stale]
      channels: [it]
    - events: [dead_letters]
      channels: [it]
      quiet_period: 1h
    - events: [job_failed]
      channels: [it]
`,
).config.notifications as NotificationsConfig;

const JOBS = new Map<string, JobConfig>([
  ['orders', { flow: 'orders', freshness: 3_600_000 } as unknown as JobConfig],
]);

const readiness = (ready: boolean): Transition => ({
  condition: 'readiness',
  value: 'not_ready',
  state: ready ? 'clear' : 'open',
  event: 'readiness_lost',
  recoveryEvent: 'readiness_restored',
  title: 'Not ready',
  paragraphs: ['api: unreachable'],
  cleared: 'Ready again',
});

describe('notification events', () => {
  let tmp: TempDir;
  let clock: FakeClock;
  let state: StateStore;
  let notifier: Notifier;
  /** One notification service start: it watches from the clock's time now. */
  const makeNotifier = (origin: MessageOrigin) =>
    new Notifier({
      state,
      config: CONFIG,
      origin,
      timezone: 'Asia/Jerusalem',
      jobs: JOBS,
      watchingSince: clock.now(),
      scrub: (text) => text,
    });
  const events = () =>
    state.notifications
      .list()
      .map((n) => n.event)
      .reverse();

  const messageOf = (event: string) =>
    JSON.parse(state.notifications.list().find((n) => n.event === event)?.message ?? '{}') as {
      text?: string;
      html?: string;
    };

  beforeEach(() => {
    tmp = tempDir();
    clock = new FakeClock();
    state = openStateStore({ file: tmp.file('state.db'), clock });
    notifier = makeNotifier({ instance: 'a', config: '/etc/supply-sync/config.yaml' });
  });
  afterEach(() => {
    state.close();
    tmp.remove();
  });

  it('queues readiness lost (even as the first state seen) and restored once per change', () => {
    expect(notifier.derive(clock.now(), [readiness(false)])).toBe(1);
    expect(notifier.derive(clock.now(), [readiness(false)])).toBe(0);
    clock.advance(1000);
    expect(notifier.derive(clock.now(), [readiness(true)])).toBe(1);
    expect(notifier.derive(clock.now(), [readiness(true)])).toBe(0);
    expect(events()).toEqual(['readiness_lost', 'readiness_restored']);
    expect(state.notifications.list().map((n) => n.dedupKey)).toEqual(['episode:1:recovered', 'episode:1']);
  });

  it('queues a refused key when it starts being refused, and its end in the recovery message', () => {
    const key = (value: string, known = true): Transition => ({
      condition: 'api_key:supplier',
      value,
      state: !known ? 'unknown' : value === '' ? 'clear' : 'open',
      event: 'api_key_refused',
      title: 'refused',
      paragraphs: [],
      cleared: 'The API accepts the supplier key again',
    });
    notifier.derive(clock.now(), [key('', false)]);
    notifier.derive(clock.now(), [key('key_revoked')]);
    notifier.derive(clock.now(), [key('key_revoked')]);
    notifier.derive(clock.now(), [key('', false)]); // after a restart, before any call: not known, nothing changes
    clock.advance(1000);
    notifier.derive(clock.now(), [key('')]);
    expect(events()).toEqual(['api_key_refused', 'readiness_restored']);
    expect(messageOf('readiness_restored').text).toContain('The API accepts the supplier key again');
  });

  it('tells of a new leader and of the one it replaced, once per term', () => {
    expect(notifier.leads('a', 1, clock.now())).toBe(1);
    expect(notifier.leads('a', 1, clock.now())).toBe(0);
    state.kv.set('notifications', 'condition:leader', 'b'); // instance b led since
    expect(notifier.leads('a', 3, clock.now())).toBe(2);
    expect(events()).toEqual(['leadership_gained', 'leadership_gained', 'leadership_lost']);
    expect(state.notifications.list()[0]?.message).toContain(
      'Instance b no longer leads; a took over (term 3)',
    );
  });

  it('tells of a takeover when both instances of a pair carry the same notifications.instance label', () => {
    // Both instances load the same config, so they share the display label; the lease holder tells them apart.
    const pairMember = () =>
      makeNotifier({ instance: 'Warehouse sync', config: '/etc/supply-sync/config.yaml' });
    const a = pairMember();
    const b = pairMember();
    expect(a.leads('node-a', 1, clock.now())).toBe(1);
    clock.advance(30_000);
    expect(b.leads('node-b', 2, clock.now())).toBe(2);
    // Told once each: the new leader's term starting again, or a second instance noting it, queues nothing.
    expect(b.leads('node-b', 2, clock.now())).toBe(0);
    expect(a.leads('node-b', 2, clock.now())).toBe(0);
    expect(events()).toEqual(['leadership_gained', 'leadership_gained', 'leadership_lost']);
    const [lost, gained] = state.notifications.list();
    expect(gained?.dedupKey).toBe('leadership_gained:node-b:2');
    expect(gained?.message).toContain('node-b now leads and runs the jobs');
    expect(lost?.dedupKey).toBe('leadership_lost:node-a:2');
    expect(lost?.message).toContain('Instance node-a no longer leads; node-b took over (term 2)');
    expect(lost?.message).toContain('[supply-sync Warehouse sync]');
  });

  it('batches dead letters per job: at most one message per quiet period, none lost', () => {
    notifier.derive(clock.now()); // notes where dead letters stand
    clock.advance(1000);
    state.deadLetters.add('orders', 'o-1', {}, 'unknown item SKU-1');
    state.deadLetters.add('orders', 'o-2', {}, 'unknown item SKU-1');
    notifier.derive(clock.now());
    clock.advance(1000);
    state.deadLetters.add('orders', 'o-3', {}, 'price missing');
    notifier.derive(clock.now()); // inside the quiet period: waits
    expect(events()).toEqual(['dead_letters']);
    expect(state.notifications.list()).toHaveLength(1);
    clock.advance(3_600_000);
    notifier.derive(clock.now());
    // The job is also past its freshness by now: only the dead-letter messages count here.
    const [later, first] = state.notifications.list().filter((n) => n.event === 'dead_letters');
    expect(first?.message).toContain('2 × unknown item SKU-1');
    expect(later?.message).toContain('1 × price missing');
    expect(later?.message).not.toContain('SKU-1');
  });

  it('does not hold back a failure behind a long run of another job, nor pass over the long one', () => {
    notifier.derive(clock.now());
    const long = state.runs.start('catalog', 'schedule');
    const quick = state.runs.start('orders', 'schedule');
    state.runs.finish(quick, 'failed', {}, 'boom');
    expect(notifier.derive(clock.now())).toBe(1);
    expect(notifier.derive(clock.now())).toBe(0); // read again behind the long run, queued once
    state.runs.finish(long, 'failed', {}, 'timeout');
    // The long run's failure joins the episode the first one started: the channel was told, it is not told again.
    expect(notifier.derive(clock.now())).toBe(0);
    expect(state.notifications.list().map((n) => n.dedupKey)).toEqual(['episode:1']);
    const episode = state.kv.get('notifications', 'episode') as { conditions: Record<string, unknown> };
    expect(Object.keys(episode.conditions).sort()).toEqual(['job:catalog', 'job:orders']);
    expect(state.kv.get('notifications', 'runs_after')).toBe(quick);
  });

  it('queues a stale job once per stale spell', () => {
    notifier.derive(clock.now());
    clock.advance(3_600_001);
    expect(notifier.derive(clock.now())).toBe(1);
    clock.advance(60_000);
    expect(notifier.derive(clock.now())).toBe(0);
    const run = state.runs.start('orders', 'schedule');
    state.runs.finish(run, 'ok', {}, null);
    clock.advance(3_600_001);
    expect(notifier.derive(clock.now())).toBe(1);
    expect(events()).toEqual(['job_stale', 'job_stale']);
  });

  it('queues a job that never succeeded as stale once per spell, across restarts and failovers', () => {
    const origin = { instance: 'a', config: '/etc/supply-sync/config.yaml' };
    const firstStart = makeNotifier(origin);
    firstStart.derive(clock.now());
    clock.advance(3_600_001);
    expect(firstStart.derive(clock.now())).toBe(1);
    // The service starts again (a restart, or the other instance after a failover): the same spell, told already.
    clock.advance(60_000);
    const secondStart = makeNotifier(origin);
    expect(secondStart.derive(clock.now())).toBe(0);
    clock.advance(3_600_001);
    expect(secondStart.derive(clock.now())).toBe(0);
    expect(events()).toEqual(['job_stale']);
    // A success ends the spell and forgets when the job was first watched.
    const run = state.runs.start('orders', 'schedule');
    state.runs.finish(run, 'ok', {}, null);
    secondStart.derive(clock.now());
    expect(state.kv.get('notifications', 'watched_since:orders')).toBeUndefined();
  });

  it('gives every time in the configured time zone, not in UTC', () => {
    notifier.derive(clock.now());
    // 08:00 UTC on 1 March is 10:00 in Jerusalem (UTC+2 until the end of March).
    const failed = state.runs.start('orders', 'schedule');
    state.runs.finish(failed, 'failed', {}, 'boom');
    notifier.leads('a', 1, clock.now());
    notifier.derive(clock.now());
    expect(messageOf('job_failed').text).toContain(
      'The run of job orders that ended 1 Mar 2026, 10:00 (Asia/Jerusalem) failed.',
    );
    expect(messageOf('leadership_gained').text).toContain(
      'Instance a became leader (term 1) at 1 Mar 2026, 10:00 (Asia/Jerusalem).',
    );
    const ok = state.runs.start('orders', 'schedule');
    state.runs.finish(ok, 'ok', {}, null);
    clock.advance(3_600_001);
    notifier.derive(clock.now());
    expect(messageOf('job_stale').text).toContain(
      'Job orders last ran successfully 1 Mar 2026, 10:00 (Asia/Jerusalem), longer ago than its freshness allows.',
    );
    const everything = JSON.stringify(state.notifications.list());
    expect(everything).not.toMatch(/2026-03-01T/);
  });

  it('does not call a paused job stale, nor a resumed one until its freshness has passed since the resume', () => {
    notifier.derive(clock.now());
    const before = state.runs.start('orders', 'schedule');
    state.runs.finish(before, 'ok', {}, null);
    expect(state.pausedJobs.pause('orders', 'cli', 'ERP upgrade')).toBe(true);
    clock.advance(86_400_000); // paused for a day, far longer than its freshness of an hour
    expect(notifier.derive(clock.now())).toBe(0);
    expect(state.transaction(() => state.pausedJobs.resume('orders'))).toBe(true);
    const resumedAt = clock.now();
    expect(state.pausedJobs.resumedAt('orders')).toBe(resumedAt);
    // Resumed: it has its freshness to run, however long ago its last success was.
    expect(notifier.derive(clock.now())).toBe(0);
    clock.advance(3_600_000);
    expect(notifier.derive(clock.now())).toBe(0);
    // No success within its freshness since the resume: stale, told once.
    clock.advance(1);
    expect(notifier.derive(clock.now())).toBe(1);
    clock.advance(60_000);
    expect(notifier.derive(clock.now())).toBe(0);
    expect(events()).toEqual(['job_stale']);
    expect(messageOf('job_stale').text).toContain(
      'Job orders has not run successfully since it was resumed 2 Mar 2026, 10:00 (Asia/Jerusalem), longer ago than its freshness allows.',
    );
    // A success after the resume is measured from as before.
    const after = state.runs.start('orders', 'schedule');
    state.runs.finish(after, 'ok', {}, null);
    clock.advance(3_600_000);
    expect(notifier.derive(clock.now())).toBe(0);
    clock.advance(1);
    expect(notifier.derive(clock.now())).toBe(1);
    expect(events()).toEqual(['job_stale', 'job_stale']);
  });

  it('tells a job stale before its pause again when it does not succeed within its freshness after the resume', () => {
    notifier.derive(clock.now());
    clock.advance(3_600_001);
    expect(notifier.derive(clock.now())).toBe(1);
    expect(state.pausedJobs.pause('orders', 'cli', null)).toBe(true);
    clock.advance(86_400_000);
    expect(notifier.derive(clock.now())).toBe(0);
    expect(state.transaction(() => state.pausedJobs.resume('orders'))).toBe(true);
    expect(notifier.derive(clock.now())).toBe(0);
    clock.advance(3_600_000);
    expect(notifier.derive(clock.now())).toBe(0);
    clock.advance(1);
    expect(notifier.derive(clock.now())).toBe(1); // a new spell, from the resume
    expect(events()).toEqual(['job_stale', 'job_stale']);
  });

  it('names the instance that sent a message when a pair shares the notifications.instance label', () => {
    const nodeA = makeNotifier({
      instance: 'Warehouse sync',
      node: 'srv-a:4121',
      config: '/etc/supply-sync/config.yaml',
    });
    nodeA.leads('srv-a:4121', 1, clock.now());
    const { text, html } = messageOf('leadership_gained');
    expect(text).toContain(
      'Sent by supply-sync on Warehouse sync (instance srv-a:4121, config /etc/supply-sync/config.yaml).',
    );
    expect(html).toContain('instance srv-a:4121, config /etc/supply-sync/config.yaml');
    // Where the label is the instance's own name, it is said once.
    expect(originLine({ instance: 'a', node: 'a', config: '/c.yaml' })).toBe(
      'Sent by supply-sync on a (config /c.yaml).',
    );
  });

  it('takes the sender name from ha.instance, else what the daemon elects under, else the host name', () => {
    const load = (yaml: string) => ({
      ...parseConfig('/etc/s.yaml', `api:\n  sandbox: embedded\n${yaml}`),
      file: '/etc/s.yaml',
    });
    const label = 'notifications:\n  instance: Warehouse sync\n';
    expect(messageOrigin(load(label), 'srv-a:4121')).toEqual({
      instance: 'Warehouse sync',
      node: 'srv-a:4121',
      config: '/etc/s.yaml',
      apiKeySetting: 'api.api_key',
    });
    expect(messageOrigin(load(label)).node).toBe(hostname());
    const pair = `${label}state:\n  url: postgres://sync@db.example.com/sync\nha:\n  instance: node-b\n`;
    expect(messageOrigin(load(pair))).toMatchObject({ instance: 'Warehouse sync', node: 'node-b' });
    expect(messageOrigin(load('')).instance).toBe(hostname());
  });
});
