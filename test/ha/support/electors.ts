/** Electors with short leases for the in-process tests, recording their callbacks in order. */
import { Elector, type ElectorOptions, type HaSettings } from '../../../src/ha/index.js';

export const FAST: Omit<HaSettings, 'instance'> = {
  leaseMs: 1_500,
  renewIntervalMs: 500,
  pollIntervalMs: 200,
  writeTimeoutMs: 600,
  writeMarginMs: 300,
};

export interface RecordedEvent {
  readonly instance: string;
  readonly event: 'elected' | 'lost';
  readonly detail: string;
}

export interface TestElectors {
  readonly events: RecordedEvent[];
  readonly warnings: string[];
  make(
    instance: string,
    url: string,
    settings?: Partial<HaSettings>,
    steering?: Pick<ElectorOptions, 'claim' | 'orphanGraceMs'>,
  ): Elector;
  stopAll(): Promise<void>;
}

export function testElectors(): TestElectors {
  const events: RecordedEvent[] = [];
  const warnings: string[] = [];
  const made: Elector[] = [];
  return {
    events,
    warnings,
    make(instance, url, settings = {}, steering = {}) {
      const elector = new Elector({
        url,
        settings: { ...FAST, instance, ...settings },
        info: { test: true },
        ...steering,
        onElected: (epoch) => events.push({ instance, event: 'elected', detail: String(epoch) }),
        onLost: (reason) => events.push({ instance, event: 'lost', detail: reason }),
        log: {
          info: () => undefined,
          warn: (fields, message) => warnings.push(`${message} ${JSON.stringify(fields)}`),
        },
      });
      made.push(elector);
      return elector;
    },
    async stopAll() {
      await Promise.all(made.splice(0).map((elector) => elector.stop()));
    },
  };
}
