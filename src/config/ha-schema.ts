/**
 * The `ha` config block: how instances sharing one PostgreSQL state (state.url) elect their leader. Every duration
 * is in milliseconds after parsing. It lives with the config (the config may not import src/ha); src/ha re-exports
 * it with what the elector makes of it.
 */
import * as z from 'zod';
import { duration } from './duration.js';

export const DEFAULT_LEASE_MS = 10_000;
export const DEFAULT_POLL_INTERVAL_MS = 2_000;

const MIN_LEASE_MS = 1_000;

/** 40% of the lease: with a renewal every third of it, a write finds its headroom without waiting. */
export function defaultWriteTimeoutMs(leaseMs: number): number {
  return Math.floor(leaseMs * 0.4);
}

export const haConfigSchema = z
  .strictObject({
    instance: z
      .string()
      .min(1)
      .max(200)
      .meta({
        description:
          'Name of this instance in the leader lease, /status and logs; unique per instance; host:pid by default',
        examples: ['erp-sync-a'],
      })
      .optional(),
    lease: duration()
      .refine((ms) => ms >= MIN_LEASE_MS, { error: 'expected a lease of at least 1s' })
      .meta({
        description:
          "How long a leader's term lasts without a renewal; a standby takes over at most lease + poll_interval after the leader dies",
        examples: ['10s'],
      })
      .default(DEFAULT_LEASE_MS),
    renew_interval: duration()
      .meta({
        description:
          'How often the leader renews its lease; a third of the lease by default; shorter than the lease',
        examples: ['3s'],
      })
      .optional(),
    write_timeout: duration()
      .refine((ms) => ms >= 100, { error: 'expected a write timeout of at least 100ms' })
      .meta({
        description:
          'The longest one write of the leader may take (an API request, an ERP commit, a books write): a write starts only while the lease has this much plus a fifth of the lease left; 40% of the lease by default',
        examples: ['4s'],
      })
      .optional(),
    poll_interval: duration()
      .refine((ms) => ms >= 100, { error: 'expected a poll interval of at least 100ms' })
      .meta({
        description: 'How often a standby tries to take the lease; a released lease is taken at once',
        examples: ['2s'],
      })
      .default(DEFAULT_POLL_INTERVAL_MS),
  })
  .superRefine((ha, ctx) => {
    // Two renewals must fit in the local deadline (lease minus a fifth), or one slow round trip ends the term.
    if (
      ha.renew_interval !== undefined &&
      (ha.renew_interval <= 0 || ha.renew_interval * 2 > ha.lease * 0.8)
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['renew_interval'],
        message: `expected a renew interval above 0 and at most ${Math.floor(ha.lease * 0.4)}ms (40% of the lease)`,
      });
      return;
    }
    checkWriteHeadroom(ha, ctx);
    if (ha.poll_interval > ha.lease) {
      ctx.addIssue({
        code: 'custom',
        path: ['poll_interval'],
        message:
          `expected a poll interval no longer than the lease (${ha.lease}ms): a standby that polls less often than ` +
          `the lease lasts leaves a dead leader's term untaken for longer than the lease; lower poll_interval to at ` +
          `most ${ha.lease}ms (2s by default) or raise lease to at least ${ha.poll_interval}ms`,
      });
    }
  })
  .meta({
    description:
      'Leader election when several instances share a PostgreSQL state (state.url): one leads and runs the jobs, the others stand by',
    examples: [{ instance: 'erp-sync-a', lease: '10s', poll_interval: '2s' }],
  });

/**
 * A write starts only with its timeout plus a fifth of the lease left (see src/ha write headroom). Just before a
 * renewal the lease has `lease - renew_interval` left, so that must cover it, or writes stall on every renewal.
 */
function checkWriteHeadroom(
  ha: { lease: number; renew_interval?: number | undefined; write_timeout?: number | undefined },
  ctx: z.RefinementCtx,
): void {
  if (ha.write_timeout === undefined) return;
  const renew = ha.renew_interval ?? Math.floor(ha.lease / 3);
  const margin = Math.floor(ha.lease / 5);
  const needed = ha.write_timeout + margin + renew;
  if (needed <= ha.lease) return;
  const maxWrite = Math.max(0, ha.lease - margin - renew);
  // With the default renew interval (a third of the lease) the write needs 7/15 of the lease, else 4/5 minus it.
  const minLease =
    ha.renew_interval === undefined
      ? Math.ceil((ha.write_timeout * 15) / 7)
      : Math.ceil((ha.write_timeout + ha.renew_interval) / 0.8);
  ctx.addIssue({
    code: 'custom',
    path: ['write_timeout'],
    message:
      `expected the lease (${ha.lease}ms) to cover write_timeout (${ha.write_timeout}ms) plus a fifth of the lease ` +
      `(${margin}ms) plus the renew interval (${renew}ms), ${needed}ms: a write starts only with its timeout and ` +
      `the margin left on the lease. Lower write_timeout to at most ${maxWrite}ms or raise lease to at least ` +
      `${minLease}ms`,
  });
}

export type HaConfigInput = z.input<typeof haConfigSchema>;
export type HaConfig = z.output<typeof haConfigSchema>;
