/**
 * The sandbox domain: every resource and state machine of the contract behind `RouteDef`s, plus the control
 * plane's actions, read-out, export rows and snapshot/restore. The platform composes it with `createDomain`.
 */
import {
  DEMO_BUYER_ACCOUNT_ID,
  DEMO_SUPPLIER_ACCOUNT_ID,
  type CreateDomain,
  type DomainServices,
  type RouteDef,
  type SandboxDomain,
} from '../http/types.js';
import { createActions } from './actions.js';
import type { Action } from './action-input.js';
import { noteMutation } from './list-index.js';
import type { DomainEnv } from './env.js';
import { clone } from './env.js';
import { exportRows } from './export-rows.js';
import { buyerAccountingRoutes } from './routes/buyer-accounting.js';
import { buyerExpenseRoutes } from './routes/buyer-expenses.js';
import { buyerOrderRoutes } from './routes/buyer-orders.js';
import { buyerReferenceRoutes } from './routes/buyer-reference.js';
import { buyerInventoryRoutes } from './routes/buyer-inventory.js';
import { buyerReportRoutes } from './routes/buyer-reports.js';
import { buyerSalesRoutes } from './routes/buyer-sales.js';
import { documentRoutes } from './routes/documents.js';
import { supplierBuyerRoutes } from './routes/supplier-buyers.js';
import { supplierPriceListRoutes } from './routes/supplier-price-lists.js';
import { supplierProductRoutes } from './routes/supplier-products.js';
import { supplierOrderRoutes } from './routes/supplier-orders.js';
import { expireInvitations } from './buyers.js';
import { DEFAULT_SEED, seedState } from './seed/index.js';
import { isDomainState } from './state.js';
import { DEMO_BUYER_NAME, DEMO_SUPPLIER_NAME } from '../../demo-data/index.js';

export { DEFAULT_SEED } from './seed/index.js';
export * from './seed/reference.js';

const ACCOUNT_NAMES: Readonly<Record<string, string>> = {
  [DEMO_SUPPLIER_ACCOUNT_ID]: DEMO_SUPPLIER_NAME,
  [DEMO_BUYER_ACCOUNT_ID]: DEMO_BUYER_NAME,
};

export interface DomainOptions {
  /** Seed of the demo data (default DEFAULT_SEED). */
  seed?: number;
  /** The first id the world hands out (default 1; a created account's world starts elsewhere). */
  firstId?: number;
  /** The last id the world may hand out (none for the demo world). */
  lastId?: number;
  /** A snapshot to start from instead of seeding (a created account's world restored from the state file). */
  saved?: unknown;
}

function allRoutes(env: DomainEnv): RouteDef[] {
  return [
    ...supplierBuyerRoutes(env),
    ...supplierOrderRoutes(env),
    ...documentRoutes(env),
    ...supplierProductRoutes(env),
    ...supplierPriceListRoutes(env),
    ...buyerReferenceRoutes(env),
    ...buyerOrderRoutes(env),
    ...buyerExpenseRoutes(env),
    ...buyerAccountingRoutes(env),
    ...buyerSalesRoutes(env),
    ...buyerInventoryRoutes(env),
    ...buyerReportRoutes(env),
  ];
}

/**
 * Writers that report every row they add or change to the list indexes (`noteRowsWritten`), so they run at scale
 * without sending the next list request through a pass over the whole collection. Each must validate before it
 * writes; if one fails anyway, a mutation is counted, as for any other writer.
 */
const ROUTES_REPORTING_ROWS = new Set(['POST /accounting/exports']);
const ACTIONS_REPORTING_ROWS = new Set(['approve_journal_lines']);

function countedOnFailure<R>(env: DomainEnv, run: () => R): R {
  try {
    const result = run();
    if (result instanceof Promise)
      return result.catch((error: unknown) => {
        noteMutation(env);
        throw error;
      }) as R;
    return result;
  } catch (error) {
    noteMutation(env);
    throw error;
  }
}

/**
 * Expires due invitations before any request reads them (G27: 14 days after creation), and counts every request
 * that may write (all but GET and the writers that report their rows) for the list indexes, before and after it
 * runs.
 */
function withHousekeeping(env: DomainEnv, routes: RouteDef[]): RouteDef[] {
  return routes.map((route) => ({
    ...route,
    handle: (ctx) => {
      expireInvitations(env);
      if (route.method === 'GET') return route.handle(ctx);
      if (ROUTES_REPORTING_ROWS.has(`${route.method} ${route.path}`))
        return countedOnFailure(env, () => route.handle(ctx));
      noteMutation(env);
      try {
        const reply = route.handle(ctx);
        if (reply instanceof Promise) return reply.finally(() => noteMutation(env));
        return reply;
      } finally {
        noteMutation(env);
      }
    },
  }));
}

/** Control-plane actions write to the state: each one counts as a mutation for the list indexes. */
function countedActions(env: DomainEnv, actions: Record<string, Action>): Record<string, Action> {
  return Object.fromEntries(
    Object.entries(actions).map(([name, action]) => [
      name,
      (body: unknown) => {
        if (ACTIONS_REPORTING_ROWS.has(name)) return countedOnFailure(env, () => action(body));
        noteMutation(env);
        try {
          return action(body);
        } finally {
          noteMutation(env);
        }
      },
    ]),
  );
}

export function createSandboxDomain(services: DomainServices, options: DomainOptions = {}): SandboxDomain {
  const seed = options.seed ?? DEFAULT_SEED;
  const firstId = options.firstId ?? 1;
  if (options.saved !== undefined && !isDomainState(options.saved))
    throw new TypeError('not a sandbox domain snapshot (version 1)');
  const start = options.saved === undefined ? seedState(services, seed, firstId) : clone(options.saved);
  const env: DomainEnv = {
    state: start,
    services,
    ...(options.lastId === undefined ? {} : { lastId: options.lastId }),
  };
  return {
    routes: withHousekeeping(env, allRoutes(env)),
    snapshot: () => clone(env.state),
    liveSnapshot: () => env.state,
    restore: (snapshot) => {
      if (!isDomainState(snapshot)) throw new TypeError('not a sandbox domain snapshot (version 1)');
      env.state = clone(snapshot);
    },
    reset: () => {
      env.state = seedState(services, seed, firstId);
    },
    actions: countedActions(env, createActions(env)),
    readout: () => ({ ...clone(env.state) }),
    accountName: (accountId) => ACCOUNT_NAMES[accountId],
    exportRows: (accountId, resource, filter) => exportRows(env, accountId, resource, filter),
  };
}

export const createDomain: CreateDomain = (services, world) => createSandboxDomain(services, world ?? {});
