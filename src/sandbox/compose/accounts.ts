/**
 * Accounts beyond the demo pair, created through the harness (POST /_sandbox/accounts): a sandbox extension, not
 * part of the contract, so that tests and demos can run an accounting office's clients or a supplier group's
 * entities. Each created account is a world of its own: a domain seeded apart (its own seed and id range) behind
 * its own key. Inside its world the account plays the demo account of its type, so every rule of the domain
 * applies unchanged; requests, events, files and exports cross the edge under the account's own id, and what its
 * world raises for the other side (a counterpart without a key) goes nowhere.
 */
import type {
  AccountRegistry,
  AccountType,
  AccountWorld,
  CreateDomain,
  CreatedAccount,
  DomainServices,
  NewAccount,
  RaisedEvent,
  SandboxDomain,
} from '../http/types.js';
import { DEMO_BUYER_ACCOUNT_ID, DEMO_SUPPLIER_ACCOUNT_ID, ProblemError } from '../http/types.js';
import { ACCOUNT_PLANS, createAccountClient } from '../platform/keys.js';
import type { PlatformState } from '../platform/state.js';
import { DEFAULT_SEED } from '../domain/seed/index.js';

/** A bound on created accounts: each world holds its seeded data in memory (a few hundred kB). */
export const MAX_CREATED_ACCOUNTS = 1000;
/** A world's ids start this far from the next one's: no world hands out that many. */
const IDS_PER_WORLD = 10_000_000;

export interface SavedAccounts {
  accounts: CreatedAccount[];
  /** Each world's domain snapshot by account id. */
  worlds: Map<string, unknown>;
}

export interface AccountsDeps {
  createDomain: CreateDomain;
  services: DomainServices;
  state: PlatformState;
  /** The sandbox's key seed: same seed, same keys for the same accounts. */
  keySeed: string | undefined;
  now(): number;
}

const insideIdOf = (type: AccountType): string =>
  type === 'buyer' ? DEMO_BUYER_ACCOUNT_ID : DEMO_SUPPLIER_ACCOUNT_ID;

export class SandboxAccounts implements AccountRegistry {
  private readonly created: CreatedAccount[] = [];
  private readonly worlds = new Map<string, AccountWorld>();
  /** Accounts whose world may have changed since the last save. */
  private readonly touched = new Set<string>();

  constructor(private readonly deps: AccountsDeps) {}

  /** Creates the account, its full-scope key and its seeded world. */
  create(input: NewAccount): { account: CreatedAccount; key: string } {
    if (this.created.length >= MAX_CREATED_ACCOUNTS) {
      throw new ProblemError(
        409,
        'conflict',
        `The sandbox holds ${MAX_CREATED_ACCOUNTS} created accounts at most; start a new sandbox for more.`,
      );
    }
    const ordinal = this.created.length + 1;
    const number = String(ordinal).padStart(4, '0');
    const account: CreatedAccount = {
      id: `acc_${input.type}_${number}`,
      type: input.type,
      name: input.name,
      seed: input.seed ?? DEFAULT_SEED + ordinal,
      plan: input.plan ?? ACCOUNT_PLANS[input.type][0] ?? 'Pro',
      clientId: `cli_${input.type}_${number}`,
      createdAt: new Date(this.deps.now()).toISOString(),
    };
    const client = createAccountClient(
      { accountId: account.id, accountType: account.type, accountName: account.name },
      account.plan,
      account.clientId,
      this.deps.keySeed,
    );
    this.deps.state.clients.push(client);
    this.open(account, ordinal);
    return { account, key: client.key };
  }

  list(): readonly CreatedAccount[] {
    return this.created;
  }

  /** The world of a created account; null for the demo accounts and unknown ids. */
  worldOf(accountId: string): AccountWorld | null {
    return this.worlds.get(accountId) ?? null;
  }

  /** Every world back to its seed data; the accounts and their keys stay. */
  reset(): void {
    for (const world of this.worlds.values()) world.domain.reset();
  }

  /**
   * What a save writes: every account, and the worlds touched since the last save (a request or an action in them,
   * a reset, a new account). A save of a sandbox of hundreds of accounts then writes the few that were used.
   */
  saved(): SavedAccounts {
    const worlds = new Map<string, unknown>();
    for (const id of this.touched) {
      const world = this.worlds.get(id);
      if (world !== undefined) worlds.set(id, world.domain.liveSnapshot?.() ?? world.domain.snapshot());
    }
    this.touched.clear();
    return { accounts: this.created, worlds };
  }

  /** Reopens the saved accounts' worlds from their snapshots (their keys come back with the platform's clients). */
  restore(saved: SavedAccounts): void {
    saved.accounts.forEach((account, index) => this.open(account, index + 1, saved.worlds.get(account.id)));
    this.touched.clear();
  }

  private open(account: CreatedAccount, ordinal: number, snapshot?: unknown): AccountWorld {
    const insideId = insideIdOf(account.type);
    const services = worldServices(this.deps.services, account.id, insideId);
    const domain = this.deps.createDomain(services, {
      seed: account.seed,
      firstId: ordinal * IDS_PER_WORLD + 1,
      lastId: (ordinal + 1) * IDS_PER_WORLD,
      ...(snapshot === undefined ? {} : { saved: snapshot }),
    });
    const world = { domain: touching(domain, () => this.touched.add(account.id)), insideId };
    this.created.push(account);
    this.worlds.set(account.id, world);
    this.touched.add(account.id);
    return world;
  }
}

/**
 * The domain with every call that may change it reported first: routes (reads too, as a read may expire an
 * invitation), actions, reset and restore.
 */
function touching(domain: SandboxDomain, touch: () => void): SandboxDomain {
  const touched =
    <A extends unknown[], R>(run: (...args: A) => R) =>
    (...args: A): R => {
      touch();
      return run(...args);
    };
  return {
    ...domain,
    routes: domain.routes.map((route) => ({ ...route, handle: touched(route.handle) })),
    actions: Object.fromEntries(Object.entries(domain.actions).map(([name, run]) => [name, touched(run)])),
    reset: touched(domain.reset),
    restore: touched(domain.restore),
  };
}

/** The platform's services as a world sees them: its own account under the demo id of its type. */
function worldServices(base: DomainServices, accountId: string, insideId: string): DomainServices {
  const outside = (id: string): string => (id === insideId ? accountId : `${accountId}/${id}`);
  return {
    clock: base.clock,
    raise: (event: RaisedEvent) => {
      // The world's counterpart has no key and no webhooks: its events stay inside the world.
      if (event.accountId === insideId) base.raise({ ...event, accountId });
    },
    files: {
      exists: (owner, fileId) => base.files.exists(outside(owner), fileId),
      markReferenced: (fileId) => base.files.markReferenced(fileId),
    },
  };
}
