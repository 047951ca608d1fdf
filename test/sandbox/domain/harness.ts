/** Drives the domain directly: a manual clock, captured events, fake file store, and a tiny route caller. */
import { createManualClock, type AdvanceableClock } from '../../../src/sandbox/platform/manual-clock.js';
import { createSandboxDomain } from '../../../src/sandbox/domain/index.js';
import {
  DEMO_BUYER_ACCOUNT_ID,
  DEMO_SUPPLIER_ACCOUNT_ID,
  ProblemError,
  type Caller,
  type HttpMethod,
  type RaisedEvent,
  type Reply,
  type SandboxDomain,
} from '../../../src/sandbox/http/types.js';

export interface Harness {
  domain: SandboxDomain;
  clock: AdvanceableClock;
  events: RaisedEvent[];
  files: Set<string>;
  call(method: HttpMethod, path: string, options?: CallOptions): Promise<Reply>;
  action<T = Record<string, unknown>>(name: string, body?: unknown): T;
  state(): Record<string, unknown>;
}

export interface CallOptions {
  as?: 'supplier' | 'buyer';
  body?: unknown;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}

const callers: Record<'supplier' | 'buyer', Caller> = {
  supplier: {
    accountId: DEMO_SUPPLIER_ACCOUNT_ID,
    accountType: 'supplier',
    clientId: 'cli_test_supplier',
    clientName: 'Test ERP',
    keyId: 'key_s',
    scopes: [],
    plan: 'supplier',
    branchIds: null,
  },
  buyer: {
    accountId: DEMO_BUYER_ACCOUNT_ID,
    accountType: 'buyer',
    clientId: 'cli_test_buyer',
    clientName: 'Test accounting',
    keyId: 'key_b',
    scopes: [],
    plan: 'Pro',
    branchIds: null,
  },
};

function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const got = path.split('/');
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (const [index, part] of want.entries()) {
    const actual = got[index] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(actual);
    else if (part !== actual) return null;
  }
  return params;
}

export function createHarness(start = Date.UTC(2026, 10, 22, 9, 0, 0)): Harness {
  const clock = createManualClock(start);
  const events: RaisedEvent[] = [];
  const files = new Set<string>(['file_known']);
  const domain = createSandboxDomain({
    clock,
    raise: (event) => events.push(event),
    files: { exists: (_account, id) => files.has(id), markReferenced: () => undefined },
  });
  return {
    domain,
    clock,
    events,
    files,
    async call(method, path, options = {}) {
      const route = domain.routes.find(
        (candidate) => candidate.method === method && match(candidate.path, path) !== null,
      );
      if (!route) throw new Error(`no route ${method} ${path}`);
      const headers: Record<string, string | undefined> = { ...(options.headers ?? {}) };
      try {
        return await route.handle({
          method,
          path,
          params: match(route.path, path) ?? {},
          query: new URLSearchParams(options.query ?? {}),
          body: options.body,
          headers,
          caller: callers[options.as ?? (path.startsWith('/supplier') ? 'supplier' : 'buyer')],
          clock,
          requestId: 'req_test',
          raise: (event) => events.push(event),
        });
      } catch (error) {
        if (error instanceof ProblemError)
          return {
            status: error.status,
            body: { code: error.code, detail: error.detail, errors: error.extra.errors ?? [] },
          };
        throw error;
      }
    },
    action<T>(name: string, body: unknown = {}): T {
      const action = domain.actions[name];
      if (!action) throw new Error(`no action ${name}`);
      return action(body) as T;
    },
    state: () => domain.readout(),
  };
}

/** The problem body of a failed call, as the harness returns it. */
export interface ProblemLike {
  code: string;
  errors: { field: string; code: string }[];
}

/** A supplier document the seeded data accepts: the linked buyer, a branch, two catalog products, totals that add up. */
export const documentBody = (overrides: Record<string, unknown> = {}) => ({
  type: 'invoice',
  number: 'INV-900001',
  date: '2026-11-20',
  buyer_id: 'byr_demo',
  branch_id: 'br_tlv',
  purchase_type: 'FC',
  currency: 'ILS',
  totals: { before_vat: '150.00', vat: '27.00', with_vat: '177.00' },
  lines: [
    { sku: 'MEA-0076', name: 'Chicken breast', quantity: '2', unit_price: '50.00', total: '100.00' },
    { sku: 'DAI-0136', name: 'Milk', quantity: '5', unit_price: '10.00', total: '50.00' },
  ],
  ...overrides,
});
