import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { handleShutdownSignals, REPEAT_WINDOW_MS } from '../../src/scheduler/shutdown.js';
import { settle } from './fake-clock.js';

function fakeProcess() {
  const emitter = new EventEmitter();
  return {
    target: { on: emitter.on.bind(emitter), off: emitter.off.bind(emitter) } as unknown as Pick<
      NodeJS.Process,
      'on' | 'off'
    >,
    emitter,
  };
}

describe('handleShutdownSignals', () => {
  it('shuts down once on SIGTERM and exits 0 when done', async () => {
    const { target, emitter } = fakeProcess();
    const reasons: string[] = [];
    const exits: number[] = [];
    let finish: () => void = () => undefined;
    let at = 0;
    const dispose = handleShutdownSignals({
      target,
      now: () => at,
      shutdown: (reason) => {
        reasons.push(reason);
        return new Promise<void>((resolve) => (finish = resolve));
      },
      exit: (code) => exits.push(code),
    });
    emitter.emit('SIGTERM', 'SIGTERM');
    await settle();
    expect(reasons).toEqual(['SIGTERM']);
    expect(exits).toEqual([]);
    finish();
    await settle();
    expect(exits).toEqual([0]);
    // A signal while the process exits after its stop, however late, changes nothing.
    at = 5 * REPEAT_WINDOW_MS;
    emitter.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([0]);
    dispose();
    expect(emitter.listenerCount('SIGTERM')).toBe(0);
    expect(emitter.listenerCount('SIGINT')).toBe(0);
  });

  it('exits at once with 130 on a later second signal, takes one at once as the same, and exits 1 when shutdown fails', async () => {
    const { target, emitter } = fakeProcess();
    const exits: number[] = [];
    const repeats: string[] = [];
    let at = 0;
    handleShutdownSignals({
      target,
      shutdown: () => new Promise<void>(() => undefined),
      exit: (code) => exits.push(code),
      onRepeat: (signal, forced) => repeats.push(`${signal} ${forced ? 'forced' : 'same'}`),
      now: () => at,
    });
    emitter.emit('SIGINT', 'SIGINT');
    at = REPEAT_WINDOW_MS;
    emitter.emit('SIGTERM', 'SIGTERM');
    expect(exits).toEqual([]);
    at = REPEAT_WINDOW_MS + 1;
    emitter.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    expect(repeats).toEqual(['SIGTERM same', 'SIGINT forced']);
    const second = fakeProcess();
    const failing: number[] = [];
    handleShutdownSignals({
      target: second.target,
      shutdown: () => Promise.reject(new Error('x')),
      exit: (code) => failing.push(code),
    });
    second.emitter.emit('SIGTERM', 'SIGTERM');
    await settle();
    expect(failing).toEqual([1]);
  });
});
