/** Webhook signing secrets kept in the state file: the API shows a secret only once, at creation. */

export interface KeyValue {
  get(namespace: string, key: string): unknown;
  set(namespace: string, key: string, value: unknown): void;
}

export interface StoredWebhookSecret {
  endpointId: string;
  secret: string;
  addedAt: number;
}

const NAMESPACE = 'webhooks';
const KEY = 'secrets';
/** Bumped by every save in this process: a store read before another store saved reads the state again. */
let savedGeneration = 0;

export class WebhookSecretStore {
  private cache: StoredWebhookSecret[] | undefined;
  private cacheGeneration = -1;

  constructor(
    private readonly kv: KeyValue,
    private readonly now: () => number = Date.now,
  ) {}

  entries(): readonly StoredWebhookSecret[] {
    if (this.cache === undefined || this.cacheGeneration !== savedGeneration) {
      this.cache = parseEntries(this.kv.get(NAMESPACE, KEY));
      this.cacheGeneration = savedGeneration;
    }
    return this.cache;
  }

  /** The active secrets the receiver accepts (several while a rotation is under way). */
  activeSecrets(): string[] {
    return this.entries().map((entry) => entry.secret);
  }

  add(endpointId: string, secret: string): void {
    const next = [
      ...this.entries().filter((e) => e.secret !== secret),
      { endpointId, secret, addedAt: this.now() },
    ];
    this.save(next);
  }

  /** Ends a rotation: keeps only the newest secret of each endpoint. */
  retireOlder(): number {
    const newest = new Map<string, StoredWebhookSecret>();
    for (const entry of this.entries()) {
      const current = newest.get(entry.endpointId);
      if (current === undefined || entry.addedAt >= current.addedAt) newest.set(entry.endpointId, entry);
    }
    const kept = [...newest.values()];
    const removed = this.entries().length - kept.length;
    this.save(kept);
    return removed;
  }

  private save(entries: StoredWebhookSecret[]): void {
    this.kv.set(NAMESPACE, KEY, entries);
    savedGeneration += 1;
    this.cache = entries;
    this.cacheGeneration = savedGeneration;
  }
}

function parseEntries(value: unknown): StoredWebhookSecret[] {
  if (!Array.isArray(value)) return [];
  return value.filter(
    (item): item is StoredWebhookSecret =>
      typeof item === 'object' &&
      item !== null &&
      typeof (item as Record<string, unknown>)['endpointId'] === 'string' &&
      typeof (item as Record<string, unknown>)['secret'] === 'string' &&
      typeof (item as Record<string, unknown>)['addedAt'] === 'number',
  );
}
