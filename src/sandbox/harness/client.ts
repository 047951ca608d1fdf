/** A small typed caller of the harness (/_sandbox/), for tests and demos that drive a running sandbox. */
import type { FaultSettings } from './faults.js';

export interface SandboxControl {
  reset(): Promise<void>;
  state(): Promise<Record<string, unknown>>;
  action(name: string, body?: unknown): Promise<unknown>;
  setFaults(
    settings: Partial<FaultSettings> & { webhook_reorder?: number | boolean },
  ): Promise<FaultSettings>;
  clearFaults(): Promise<void>;
  simulate(settings: {
    actions_per_second: number;
    mix?: Record<string, number>;
    seed?: number;
  }): Promise<unknown>;
  stopSimulation(): Promise<unknown>;
  /** Only with a manual clock; rejects otherwise. */
  advanceClock(ms: number): Promise<string>;
}

async function send(controlUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${controlUrl}/${path}`, {
    method,
    signal: AbortSignal.timeout(30_000),
    ...(body === undefined
      ? {}
      : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  });
  const text = await response.text();
  const parsed: unknown = text === '' ? undefined : JSON.parse(text);
  if (!response.ok) {
    const detail = (parsed as { detail?: unknown } | undefined)?.detail;
    throw new Error(
      `sandbox control ${method} /_sandbox/${path} failed (${response.status}): ${String(detail)}`,
    );
  }
  return parsed;
}

export function sandboxControl(controlUrl: string): SandboxControl {
  return {
    reset: async () => void (await send(controlUrl, 'POST', 'reset')),
    state: async () => (await send(controlUrl, 'GET', 'state')) as Record<string, unknown>,
    action: (name, body = {}) => send(controlUrl, 'POST', `actions/${encodeURIComponent(name)}`, body),
    setFaults: async (settings) => (await send(controlUrl, 'POST', 'faults', settings)) as FaultSettings,
    clearFaults: async () => void (await send(controlUrl, 'DELETE', 'faults')),
    simulate: (settings) => send(controlUrl, 'POST', 'simulate', settings),
    stopSimulation: () => send(controlUrl, 'DELETE', 'simulate'),
    advanceClock: async (ms) =>
      String(((await send(controlUrl, 'POST', 'clock', { advance_ms: ms })) as { now: string }).now),
  };
}
