/** A small typed caller of the harness (/_sandbox/), for tests and demos that drive a running sandbox. */
import type { FaultSettings } from './faults.js';

/** An account created through POST /_sandbox/accounts, with the key its integration uses. */
export interface CreatedAccountInfo {
  id: string;
  type: 'buyer' | 'supplier';
  name: string;
  seed: number;
  client_id: string;
  key: string;
  scopes: string[];
  plan: string;
  created_at: string;
}

export interface SandboxControl {
  reset(): Promise<void>;
  /** The demo world's state, or the world of the created account `account` names. */
  state(account?: string): Promise<Record<string, unknown>>;
  /** Runs a domain action in the demo world, or in the world of the created account `account` names. */
  action(name: string, body?: unknown, account?: string): Promise<unknown>;
  createAccount(input: {
    type: 'buyer' | 'supplier';
    name: string;
    seed?: number;
    plan?: 'Basic' | 'Pro' | 'Enterprise' | 'supplier';
  }): Promise<CreatedAccountInfo>;
  accounts(): Promise<CreatedAccountInfo[]>;
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

const inWorld = (path: string, account: string | undefined): string =>
  account === undefined ? path : `${path}?account=${encodeURIComponent(account)}`;

export function sandboxControl(controlUrl: string): SandboxControl {
  return {
    reset: async () => void (await send(controlUrl, 'POST', 'reset')),
    state: async (account) =>
      (await send(controlUrl, 'GET', inWorld('state', account))) as Record<string, unknown>,
    action: (name, body = {}, account) =>
      send(controlUrl, 'POST', inWorld(`actions/${encodeURIComponent(name)}`, account), body),
    createAccount: async (input) => (await send(controlUrl, 'POST', 'accounts', input)) as CreatedAccountInfo,
    accounts: async () =>
      ((await send(controlUrl, 'GET', 'accounts')) as { accounts: CreatedAccountInfo[] }).accounts,
    setFaults: async (settings) => (await send(controlUrl, 'POST', 'faults', settings)) as FaultSettings,
    clearFaults: async () => void (await send(controlUrl, 'DELETE', 'faults')),
    simulate: (settings) => send(controlUrl, 'POST', 'simulate', settings),
    stopSimulation: () => send(controlUrl, 'DELETE', 'simulate'),
    advanceClock: async (ms) =>
      String(((await send(controlUrl, 'POST', 'clock', { advance_ms: ms })) as { now: string }).now),
  };
}
