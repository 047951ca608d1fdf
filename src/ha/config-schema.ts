/**
 * The `ha` config block: how instances sharing one PostgreSQL state elect their leader. Every duration is in
 * milliseconds after parsing. The failover bound is lease + poll_interval (the dead leader's lease runs out at most
 * one lease after its last renewal, and a standby notices within one poll), 12 s with the defaults.
 */
import { hostname } from 'node:os';
import { type HaConfig } from '../config/ha-schema.js';

export {
  DEFAULT_LEASE_MS,
  DEFAULT_POLL_INTERVAL_MS,
  haConfigSchema,
  type HaConfig,
  type HaConfigInput,
} from '../config/ha-schema.js';

/** The block with every default filled in: what the elector runs with. */
export interface HaSettings {
  readonly instance: string;
  readonly leaseMs: number;
  readonly renewIntervalMs: number;
  readonly pollIntervalMs: number;
}

export function haSettings(config: HaConfig): HaSettings {
  return {
    instance: config.instance ?? defaultInstanceName(),
    leaseMs: config.lease,
    renewIntervalMs: config.renew_interval ?? Math.floor(config.lease / 3),
    pollIntervalMs: config.poll_interval,
  };
}

export function defaultInstanceName(): string {
  return `${hostname()}:${process.pid}`;
}

/** The longest a standby may take to lead after the leader dies. */
export function failoverBoundMs(settings: Pick<HaSettings, 'leaseMs' | 'pollIntervalMs'>): number {
  return settings.leaseMs + settings.pollIntervalMs;
}
