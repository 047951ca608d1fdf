/** The lifecycle on its own: services started in order, stopped in reverse, after a stop and after a failed start. */
import { describe, expect, it } from 'vitest';
import {
  Lifecycle,
  ServiceGroup,
  ServicesStopError,
  StartAbortedError,
  startServices,
  type Service,
} from '../../src/daemon/index.js';

type LogFields = { service?: unknown; err?: unknown };

interface Recorder {
  readonly events: string[];
  /** Failed stops, logged at error level. */
  readonly errors: { service: unknown; err: unknown }[];
  log: () => { warn: (fields: LogFields) => void; error: (fields: LogFields) => void };
}

function recorder(): Recorder {
  const events: string[] = [];
  const errors: { service: unknown; err: unknown }[] = [];
  return {
    events,
    errors,
    log: () => ({
      warn: () => undefined,
      error: (fields) => errors.push({ service: fields.service, err: fields.err }),
    }),
  };
}

/** A service that records its start and stop; `failStart`/`failStop` make that step throw. */
function service(name: string, rec: Recorder, fail: { start?: Error; stop?: Error } = {}): Service {
  return {
    name,
    start: async () => {
      if (fail.start) throw fail.start;
      rec.events.push(`start ${name}`);
    },
    stop: async (options) => {
      rec.events.push(`stop ${name} (${options.timeoutMs} ms)`);
      if (fail.stop) throw fail.stop;
    },
  };
}

describe('lifecycle', () => {
  it('stops every started service in reverse order on a normal stop', async () => {
    const rec = recorder();
    const lifecycle = new Lifecycle(rec.log);
    await startServices(lifecycle, { timeoutMs: 1 }, async () => {
      for (const name of ['a', 'b', 'c']) await lifecycle.start(service(name, rec));
    });
    expect(lifecycle.started()).toEqual(['a', 'b', 'c']);
    await lifecycle.stop({ timeoutMs: 500 });
    expect(rec.events).toEqual([
      'start a',
      'start b',
      'start c',
      'stop c (500 ms)',
      'stop b (500 ms)',
      'stop a (500 ms)',
    ]);
    expect(lifecycle.started()).toEqual([]);
    // A second stop has nothing left to stop.
    await lifecycle.stop({ timeoutMs: 500 });
    expect(rec.events).toHaveLength(6);
  });

  it('stops each service once when a second stop is asked for during the first', async () => {
    const rec = recorder();
    const lifecycle = new Lifecycle(rec.log);
    let release = (): void => undefined;
    const slow: Service = {
      name: 'slow',
      start: async () => undefined,
      stop: () =>
        new Promise<void>((resolve) => (release = resolve)).then(() => void rec.events.push('stop slow')),
    };
    await lifecycle.start(service('first', rec));
    await lifecycle.start(slow);
    const firstStop = lifecycle.stop({ timeoutMs: 1 });
    const secondStop = lifecycle.stop({ timeoutMs: 1 });
    release();
    await Promise.all([firstStop, secondStop]);
    expect(rec.events).toEqual(['start first', 'stop slow', 'stop first (1 ms)']);
  });

  it.each([1, 2, 3, 4])(
    'stops the services before step %i in reverse when that step fails',
    async (failing) => {
      const rec = recorder();
      const names = ['a', 'b', 'c', 'd'];
      const startError = new Error(`step ${failing} failed`);
      const lifecycle = new Lifecycle(rec.log);
      const started = startServices(lifecycle, { timeoutMs: 7 }, async () => {
        for (const [index, name] of names.entries()) {
          await lifecycle.start(service(name, rec, index + 1 === failing ? { start: startError } : {}));
        }
      });
      await expect(started).rejects.toBe(startError);
      const before = names.slice(0, failing - 1);
      expect(rec.events).toEqual([
        ...before.map((name) => `start ${name}`),
        ...before.reverse().map((name) => `stop ${name} (7 ms)`),
      ]);
    },
  );

  it('logs a failing stop after a failed start, stops the rest, and reports the start error', async () => {
    const rec = recorder();
    const startError = new Error('ops port taken');
    const stopError = new Error('inbox close failed');
    const lifecycle = new Lifecycle(rec.log);
    const started = startServices(lifecycle, { timeoutMs: 0 }, async () => {
      await lifecycle.start(service('environment', rec));
      await lifecycle.start(service('inbox', rec, { stop: stopError }));
      await lifecycle.start(service('scheduler', rec));
      await lifecycle.start(service('ops server', rec, { start: startError }));
    });
    await expect(started).rejects.toBe(startError);
    expect(rec.events).toEqual([
      'start environment',
      'start inbox',
      'start scheduler',
      'stop scheduler (0 ms)',
      'stop inbox (0 ms)',
      'stop environment (0 ms)',
    ]);
    expect(rec.errors).toEqual([{ service: 'inbox', err: stopError }]);
  });

  it('tells the observer of each start and stop, and fails a start the observer refuses', async () => {
    const rec = recorder();
    const seen: string[] = [];
    const lifecycle = new Lifecycle(rec.log, {
      starting: (name) => {
        if (name === 'c') throw new Error('injected');
      },
      started: (name) => seen.push(`started ${name}`),
      stopped: (name) => seen.push(`stopped ${name}`),
    });
    const started = startServices(lifecycle, { timeoutMs: 0 }, async () => {
      for (const name of ['a', 'b', 'c']) await lifecycle.start(service(name, rec));
    });
    await expect(started).rejects.toThrow('injected');
    expect(seen).toEqual(['started a', 'started b', 'stopped b', 'stopped a']);
    expect(rec.events).not.toContain('start c');
  });
});

describe('service group', () => {
  it('starts and stops its services as one, and again after a stop', async () => {
    const rec = recorder();
    const group = new ServiceGroup('jobs', [service('x', rec), service('y', rec)], rec.log, { timeoutMs: 0 });
    const lifecycle = new Lifecycle(rec.log);
    await lifecycle.start(service('before', rec));
    await lifecycle.start(group);
    await group.stop({ timeoutMs: 3 });
    await group.start();
    await lifecycle.stop({ timeoutMs: 4 });
    expect(rec.events).toEqual([
      'start before',
      'start x',
      'start y',
      'stop y (3 ms)',
      'stop x (3 ms)',
      'start x',
      'start y',
      'stop y (4 ms)',
      'stop x (4 ms)',
      'stop before (4 ms)',
    ]);
  });

  it('stops what it started when one of its services fails, and rethrows', async () => {
    const rec = recorder();
    const failure = new Error('dispatch failed');
    const group = new ServiceGroup(
      'jobs',
      [service('x', rec), service('y', rec, { start: failure }), service('z', rec)],
      rec.log,
      { timeoutMs: 9 },
    );
    await expect(group.start()).rejects.toBe(failure);
    expect(rec.events).toEqual(['start x', 'stop x (9 ms)']);
    await group.stop({ timeoutMs: 1 });
    expect(rec.events).toHaveLength(2);
  });
});

describe('a failed stop', () => {
  it('stops the rest, logs each failure at error level and rejects naming the services that failed', async () => {
    const rec = recorder();
    const lifecycle = new Lifecycle(rec.log);
    const inboxError = new Error('inbox close failed');
    const schedulerError = new Error('scheduler stop failed');
    await lifecycle.start(service('environment', rec));
    await lifecycle.start(service('inbox', rec, { stop: inboxError }));
    await lifecycle.start(service('scheduler', rec, { stop: schedulerError }));
    const stopped = lifecycle.stop({ timeoutMs: 2 });
    await expect(stopped).rejects.toBeInstanceOf(ServicesStopError);
    await expect(stopped).rejects.toMatchObject({ services: ['scheduler', 'inbox'] });
    await expect(stopped).rejects.toThrow('failed to stop: scheduler, inbox');
    expect(rec.events.filter((event) => event.startsWith('stop'))).toEqual([
      'stop scheduler (2 ms)',
      'stop inbox (2 ms)',
      'stop environment (2 ms)',
    ]);
    expect(rec.errors).toEqual([
      { service: 'scheduler', err: schedulerError },
      { service: 'inbox', err: inboxError },
    ]);
  });

  it('names the group and the service in it that failed', async () => {
    const rec = recorder();
    const group = new ServiceGroup(
      'jobs',
      [service('x', rec), service('y', rec, { stop: new Error('y hung') })],
      rec.log,
      { timeoutMs: 0 },
    );
    const lifecycle = new Lifecycle(rec.log);
    await lifecycle.start(service('before', rec));
    await lifecycle.start(group);
    await expect(lifecycle.stop({ timeoutMs: 1 })).rejects.toMatchObject({ services: ['jobs (y)'] });
    expect(rec.events).toContain('stop before (1 ms)');
    expect(rec.events).toContain('stop x (1 ms)');
  });
});

describe('an aborted start', () => {
  it('starts nothing more, stops what started in reverse and rejects with StartAbortedError', async () => {
    const rec = recorder();
    const abort = new AbortController();
    const seenSignals: (AbortSignal | undefined)[] = [];
    const slow: Service = {
      name: 'slow',
      start: async (signal) => {
        seenSignals.push(signal);
        abort.abort(); // SIGTERM while this service starts
        rec.events.push('start slow');
      },
      stop: async () => void rec.events.push('stop slow'),
    };
    const lifecycle = new Lifecycle(rec.log, {}, abort.signal);
    const started = startServices(lifecycle, { timeoutMs: 3 }, async () => {
      await lifecycle.start(service('a', rec));
      await lifecycle.start(slow);
      await lifecycle.start(service('c', rec));
    });
    await expect(started).rejects.toBeInstanceOf(StartAbortedError);
    expect(seenSignals).toEqual([abort.signal]);
    expect(rec.events).toEqual(['start a', 'start slow', 'stop slow', 'stop a (3 ms)']);
  });
});

/** A service whose start and stop each take a few turns of the event loop, counting how many are running. */
function slowService(name: string, running: Set<string>, events: string[]): Service {
  const turns = async (): Promise<void> => {
    for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    name,
    start: async () => {
      await turns();
      if (running.has(name)) throw new Error(`${name} started twice`);
      running.add(name);
      events.push(`start ${name}`);
    },
    stop: async () => {
      await turns();
      if (!running.delete(name)) throw new Error(`${name} stopped while not running`);
      events.push(`stop ${name}`);
    },
  };
}

describe('service group state', () => {
  it('a stop during the start waits for it, then stops what it started', async () => {
    const running = new Set<string>();
    const events: string[] = [];
    const rec = recorder();
    const group = new ServiceGroup(
      'jobs',
      [slowService('x', running, events), slowService('y', running, events)],
      rec.log,
      { timeoutMs: 0 },
    );
    const started = group.start();
    await new Promise((resolve) => setImmediate(resolve));
    expect(group.state).toBe('starting');
    const stopped = group.stop({ timeoutMs: 0 });
    await Promise.all([started, stopped]);
    expect(events).toEqual(['start x', 'start y', 'stop y', 'stop x']);
    expect(running.size).toBe(0);
    expect(group.state).toBe('stopped');
  });

  it('a second start while running does nothing', async () => {
    const running = new Set<string>();
    const events: string[] = [];
    const group = new ServiceGroup('jobs', [slowService('x', running, events)], recorder().log, {
      timeoutMs: 0,
    });
    await Promise.all([group.start(), group.start()]);
    await group.start();
    expect(events).toEqual(['start x']);
    expect(group.state).toBe('running');
    await group.stop({ timeoutMs: 0 });
    await group.stop({ timeoutMs: 0 });
    expect(events).toEqual(['start x', 'stop x']);
  });

  it.each([
    ['start', 'stop', 'start', 'stop'],
    ['start', 'stop', 'start'],
    ['start', 'start', 'stop', 'stop', 'start'],
    ['stop', 'start', 'stop', 'start', 'stop', 'start', 'start'],
    ['start', 'stop', 'stop', 'start', 'stop'],
  ])('rapid %s, ...: nothing leaks and the final state is that of the last call', async (...calls) => {
    const running = new Set<string>();
    const events: string[] = [];
    const rec = recorder();
    const group = new ServiceGroup(
      'jobs',
      ['x', 'y', 'z'].map((name) => slowService(name, running, events)),
      rec.log,
      { timeoutMs: 0 },
    );
    // All asked for at once, as a leader losing and winning terms in quick succession would.
    await Promise.all(calls.map((call) => (call === 'start' ? group.start() : group.stop({ timeoutMs: 0 }))));
    const last = calls.at(-1);
    expect(group.state).toBe(last === 'start' ? 'running' : 'stopped');
    expect([...running].sort()).toEqual(last === 'start' ? ['x', 'y', 'z'] : []);
    expect(rec.errors).toEqual([]); // no service started twice or stopped while not running
    await group.stop({ timeoutMs: 0 });
    expect(running.size).toBe(0);
  });
});
