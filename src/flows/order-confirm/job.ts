/** The order-confirm job: every pending ERP confirmation is sent once, then marked sent in the ERP. */
import type { ApiClient } from '../../client/index.js';
import type { ConfirmationSource } from '../../connector-contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import { errorMessage, RunBudget, type Job, type JobContext, type RunResult } from '../../engine/index.js';
import { tallyOf } from '../shared/held-back.js';
import { recordFailureReason } from '../shared/failures.js';
import type { OrderConfirmOptions } from './options.js';
import { buildRequest, skuOfItem } from './request.js';
import { ConfirmationSender } from './send.js';

export interface OrderConfirmJobInput {
  name: string;
  connectorName: string;
  api: Pick<ApiClient, 'orders'>;
  source: ConfirmationSource;
  options: OrderConfirmOptions;
  mappings: Mappings;
}

export function createOrderConfirmJob(input: OrderConfirmJobInput): Job {
  return { name: input.name, run: (ctx) => runOrderConfirm(input, ctx) };
}

/** The run, with the confirmations it sent and held back as its tally (the engine's judgeRun decides the outcome). */
async function runOrderConfirm(input: OrderConfirmJobInput, ctx: JobContext): Promise<RunResult> {
  const counts: Record<string, number> = {
    pending: 0,
    sent: 0,
    reconciled: 0,
    marked: 0,
    held: 0,
    deadLettered: 0,
  };
  const result = await confirmRun(input, ctx, counts);
  const tally = tallyOf(counts, 'confirmations', {
    delivered: ['sent', 'reconciled', 'marked', 'would_send'],
    heldBack: ['deadLettered', 'would_dead_letter'],
  });
  return { ...result, tally };
}

async function confirmRun(
  input: OrderConfirmJobInput,
  ctx: JobContext,
  counts: Record<string, number>,
): Promise<RunResult> {
  const bump = (key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
  const skuOf = skuOfItem(input.mappings, input.options.item_mapping);
  const sender = new ConfirmationSender({
    api: input.api,
    source: input.source,
    state: ctx.state,
    flow: input.name,
    connector: input.connectorName,
  });
  let progress = false;
  try {
    const pending = await input.source.listPendingConfirmations();
    counts['pending'] = pending.length;
    for (const confirmation of pending.slice(0, input.options.max_per_run)) {
      if (budget.stopReason() !== null) return { outcome: progress ? 'partial' : 'skipped', counts };
      const letter = ctx.state.deadLetters.get(input.name, confirmation.ref);
      const waiting = letter !== null && (letter.status === 'open' || letter.status === 'discarded');
      if (waiting) {
        bump('held');
        continue;
      }
      if (ctx.dryRun) {
        bump(dryRunVerdict(() => buildRequest(confirmation, input.options, skuOf)));
        continue;
      }
      try {
        const request = buildRequest(confirmation, input.options, skuOf);
        bump(await sender.send(confirmation, request, ctx.signal));
        if (letter !== null) ctx.state.deadLetters.resolve(input.name, confirmation.ref);
      } catch (error) {
        const reason = recordFailureReason(error, ctx.signal);
        ctx.state.deadLetters.add(input.name, confirmation.ref, confirmation, reason);
        ctx.logger.warn(
          { job: input.name, ref: confirmation.ref, reason },
          'confirmation filed as a dead letter',
        );
        bump('deadLettered');
      }
      progress = true;
    }
    return { outcome: 'ok', counts };
  } catch (error) {
    if (ctx.signal.aborted) return { outcome: progress ? 'partial' : 'skipped', counts };
    return { outcome: progress ? 'partial' : 'failed', counts, error: errorMessage(error) };
  }
}

function dryRunVerdict(build: () => unknown): string {
  try {
    build();
    return 'would_send';
  } catch {
    return 'would_dead_letter';
  }
}
