/**
 * Several office processes sharing one set of companies on PostgreSQL (the office file's `state.url` holds who is
 * alive, each company's own database its lease). Every instance runs every company's daemon; the company's lease
 * decides which one runs its jobs, and this module steers who tries: each instance claims the companies assigned to
 * it (company-assignment.ts), hands over at a checkpoint those it leads that now belong to another, and leaves the
 * others to their assigned instance, taking one only when its lease has stayed free for a whole lease (its assigned
 * instance does not have it, or is gone and not yet noticed).
 */
import type { Logger } from 'pino';
import { Membership, type HaSettings } from '../../ha/index.js';
import { assignCompanies } from './company-assignment.js';
import { eachBounded, START_CONCURRENCY, type MutableEntry } from './office-companies.js';

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

  constructor(options: OfficeBalanceOptions) {
    this.#options = options;
    this.#membership = new Membership({
      url: options.url,
      settings: options.settings,
      log: options.logger,
      onChange: (members) => this.#membersChanged(members),
    });
  }

  /** This instance's name among the office's instances. */
  get instance(): string {
    return this.#options.settings.instance;
  }

  /** Whether this instance should take the company's lease at once: it is assigned here, or nobody is known yet. */
  claims(company: string): boolean {
    const owner = this.#assigned.get(company);
    return owner === undefined || owner === this.instance;
  }

  /** The instance the company is assigned to, as this one sees it; null before the members are known. */
  ownerOf(company: string): string | null {
    return this.#assigned.get(company) ?? null;
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

  #membersChanged(seen: readonly string[]): void {
    const members = seen.includes(this.instance) ? seen : [...seen, this.instance];
    this.#members = members;
    const entries = [...this.#options.entries()];
    this.#assigned = assignCompanies(
      entries.map((entry) => entry.name),
      members,
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
