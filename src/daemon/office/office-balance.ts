/**
 * Several office processes sharing one set of companies on PostgreSQL (the office file's `state.url` holds who is
 * alive, each company's own database its lease). Every instance runs every company's daemon; the company's lease
 * decides which one runs its jobs, and this module steers who tries: each instance claims the companies assigned to
 * it (company-assignment.ts), hands over at a checkpoint those it leads that now belong to another, and leaves the
 * others to their assigned instance, taking one only when its lease has stayed free for a whole lease (its assigned
 * instance does not have it, or is gone and not yet noticed).
 */
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Membership, type HaSettings, type OfficeDuties } from '../../ha/index.js';
import { assignCompanies } from './company-assignment.js';
import { eachBounded, START_CONCURRENCY, type MutableEntry } from './office-companies.js';
import type { OfficeInstances } from './office-status.js';

export interface OfficeBalanceOptions {
  /** The office file's state.url, password resolved: where the instances see each other. */
  readonly url: string;
  /** The office's `ha` block: this instance's name, the lease and poll interval. */
  readonly settings: HaSettings;
  /** Every company the office knows (the names of its company files), running or not. */
  readonly entries: () => Iterable<MutableEntry>;
  readonly logger: Logger;
}

export class OfficeBalance {
  readonly #options: OfficeBalanceOptions;
  readonly #membership: Membership;
  #assigned: ReadonlyMap<string, string> = new Map();
  #members: readonly string[] = [];
  readonly #handingOver = new Set<string>();
  #handovers: Promise<void> = Promise.resolve();
  /** When the members last changed (monotonic ms); the assignment is corrected once it has held for a while. */
  #changedAt = 0;
  /**
   * Companies handed over by a correction: one taken back after it (its lease stayed free: its assigned process
   * does not run it) stays here until the members change, so that it is not handed back and forth.
   */
  readonly #corrected = new Set<string>();

  constructor(options: OfficeBalanceOptions) {
    this.#options = options;
    this.#membership = new Membership({
      url: options.url,
      settings: options.settings,
      log: options.logger,
      onChange: (members) => this.#membersChanged(members),
      cannotRun: () =>
        [...options.entries()].filter((entry) => entry.state === 'failed').map((entry) => entry.name),
      onReading: () => this.#correct(),
    });
  }

  /** This instance's name among the office's instances. */
  get instance(): string {
    return this.#options.settings.instance;
  }

  /**
   * Whether this instance should take the company's lease at once: it is assigned here. Before the members are
   * known (while the companies start, or the office's database cannot be read) none is: a lease is then taken only
   * once it has stayed free for a whole lease, so a process that starts grabs nothing another should have.
   */
  claims(company: string): boolean {
    return this.#assigned.get(company) === this.instance;
  }

  /** The instance the company is assigned to, as this one sees it; null before the members are known. */
  ownerOf(company: string): string | null {
    return this.#assigned.get(company) ?? null;
  }

  /** Whether the instance said, with its heartbeat, that it cannot run the company. */
  cannotRun(instance: string, company: string): boolean {
    return this.#membership.cannotRun().get(instance)?.includes(company) === true;
  }

  /** What one process of the office does for all (the office report), claimed in the office's database. */
  get duties(): OfficeDuties {
    return this.#membership.duties;
  }

  /** Joins the office's instances; called once the companies have started, so a new instance can take its share. */
  async start(): Promise<void> {
    await this.#membership.start();
  }

  /** Leaves (the others take over this one's companies as they stop) and waits for hand-overs under way. */
  async stop(): Promise<void> {
    await this.#membership.stop();
    await this.#handovers;
  }

  /** The companies changed (a reload): assign again with the members known. */
  rebalance(): void {
    if (this.#members.length > 0) this.#membersChanged(this.#members);
  }

  /** The office's instances as this one sees them, and why they cannot be read now. */
  status(): OfficeInstances {
    const cannotRun = Object.fromEntries(this.#membership.cannotRun());
    return {
      instance: this.instance,
      members: this.#members,
      cannotRun,
      error: this.#membership.lastError(),
    };
  }

  #membersChanged(seen: readonly string[]): void {
    const members = seen.includes(this.instance) ? seen : [...seen, this.instance];
    this.#members = members;
    this.#changedAt = performance.now();
    this.#corrected.clear();
    const entries = [...this.#options.entries()];
    this.#assigned = assignCompanies(
      entries.map((entry) => entry.name),
      members,
      this.#membership.cannotRun(),
    );
    this.#options.logger.info({ instances: members }, 'office instances changed: companies assigned again');
    const leaving: MutableEntry[] = [];
    for (const entry of entries) {
      const lead = entry.daemon?.leadership;
      if (lead === undefined) continue;
      if (this.claims(entry.name)) lead.claimed();
      else if (lead.leads() && !this.#handingOver.has(entry.name)) leaving.push(entry);
    }
    if (leaving.length > 0) this.#handOver(leaving);
  }

  /**
   * Between changes of the members: a company this process leads though it is assigned to another (taken while
   * its process started, or taken back as free) is handed over, once the assignment has held for two leases.
   */
  #correct(): void {
    if (performance.now() - this.#changedAt < 2 * this.#options.settings.leaseMs) return;
    const leaving = [...this.#options.entries()].filter(
      (entry) =>
        entry.daemon?.leadership?.leads() === true &&
        !this.claims(entry.name) &&
        !this.#handingOver.has(entry.name) &&
        !this.#corrected.has(entry.name),
    );
    for (const entry of leaving) this.#corrected.add(entry.name);
    if (leaving.length > 0) this.#handOver(leaving);
  }

  #handOver(leaving: readonly MutableEntry[]): void {
    for (const entry of leaving) this.#handingOver.add(entry.name);
    const done = eachBounded(leaving, START_CONCURRENCY, async (entry) => {
      const owner = this.ownerOf(entry.name);
      try {
        await entry.daemon?.leadership?.handOver(`company ${entry.name} is assigned to instance ${owner}`);
      } finally {
        this.#handingOver.delete(entry.name);
      }
    }).catch((error: unknown) => this.#options.logger.error({ err: error }, 'a hand-over failed'));
    this.#handovers = Promise.all([this.#handovers, done]).then(() => undefined);
  }
}
