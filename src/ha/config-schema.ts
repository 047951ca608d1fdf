/**
 * The `ha` config block: how instances sharing one PostgreSQL state elect their leader. Every duration is in
 * milliseconds after parsing. The failover bound is lease + poll_interval (the dead leader's lease runs out at most
 * one lease after its last renewal, and a standby notices within one poll), 12 s with the defaults.
 */
import { hostname } from 'node:os';
import { defaultWriteTimeoutMs, type HaConfig } from '../config/ha-schema.js';

export {
  DEFAULT_LEASE_MS,
  defaultWriteTimeoutMs,
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
  /** The longest one write may take; each API request's timeout is cut to it. */
  readonly writeTimeoutMs: number;
  /** Lease time kept in reserve beyond a write's timeout: clock drift and round trips (a fifth of the lease). */
  readonly writeMarginMs: number;
}

export function haSettings(config: HaConfig): HaSettings {
  return {
    instance: config.instance ?? defaultInstanceName(),
    leaseMs: config.lease,
    renewIntervalMs: config.renew_interval ?? Math.floor(config.lease / 3),
    pollIntervalMs: config.poll_interval,
    writeTimeoutMs: config.write_timeout ?? defaultWriteTimeoutMs(config.lease),
    writeMarginMs: writeMarginMs(config.lease),
  };
}

export function writeMarginMs(leaseMs: number): number {
  return Math.floor(leaseMs / 5);
}

/** The lease time a write needs left before it starts: its timeout plus the margin. */
export function writeHeadroomMs(settings: Pick<HaSettings, 'writeTimeoutMs' | 'writeMarginMs'>): number {
  return settings.writeTimeoutMs + settings.writeMarginMs;
}

export function defaultInstanceName(): string {
  return `${hostname()}:${process.pid}`;
}

/** The longest a standby may take to lead after the leader dies. */
export function failoverBoundMs(settings: Pick<HaSettings, 'leaseMs' | 'pollIntervalMs'>): number {
  return settings.leaseMs + settings.pollIntervalMs;
}
