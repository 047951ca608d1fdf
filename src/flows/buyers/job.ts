/** The buyers job: map every linked buyer to its ERP customer, then invite the ERP customers not linked yet. */
import type { ApiClient } from '../../client/index.js';
import type { CustomerDirectory } from '../../connector-contract/index.js';
import type { SupplierBuyer } from '../../contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import { errorMessage, RunBudget, type Job, type JobContext, type RunResult } from '../../engine/index.js';
import { recordFailureReason } from '../shared/failures.js';
import { inviteCandidates, inviteCustomer, wasInvited } from './invite.js';
import { linkBuyer } from './link.js';
import { CustomerMatcher } from './match.js';
import type { BuyersOptions } from './options.js';

export interface BuyersJobInput {
  name: string;
  connectorName: string;
  api: Pick<ApiClient, 'supplierBuyers'>;
  directory: CustomerDirectory;
  options: BuyersOptions;
  mappings: Mappings;
}

export function createBuyersJob(input: BuyersJobInput): Job {
  return { name: input.name, run: (ctx) => runBuyers(input, ctx) };
}

async function runBuyers(input: BuyersJobInput, ctx: JobContext): Promise<RunResult> {
  const counts: Record<string, number> = {};
  const bump = (key: string) => (counts[key] = (counts[key] ?? 0) + 1);
  const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
  let progress = false;
  try {
    const customers = await input.directory.listCustomers();
    const matcher = new CustomerMatcher(customers, input.options, input.mappings);
    const linked = new Set<string>();
    const buyers: SupplierBuyer[] = [];
    for await (const buyer of input.api.supplierBuyers.list({ limit: 200, signal: ctx.signal }).items()) {
      buyers.push(buyer);
      if (buyer.customer_number) linked.add(buyer.customer_number);
    }
    for (const buyer of buyers) {
      if (budget.stopReason() !== null) return { outcome: progress ? 'partial' : 'skipped', counts };
      if (buyer.status !== 'active' && !input.options.include_inactive) {
        bump('inactive');
        continue;
      }
      const match = matcher.match(buyer);
      if (!match.ok) {
        ctx.state.deadLetters.add(
          input.name,
          buyer.id,
          { buyer_id: buyer.id, name: buyer.name },
          match.reason,
        );
        bump('unmatched');
        continue;
      }
      linked.add(match.customer.customerNumber);
      if (ctx.dryRun) {
        bump('would_link');
        continue;
      }
      try {
        bump((await linkBuyer(input.api, buyer, match.customer, ctx.signal)) ? 'updated' : 'unchanged');
        ctx.state.deadLetters.resolve(input.name, buyer.id);
      } catch (error) {
        const reason = recordFailureReason(error, ctx.signal);
        ctx.state.deadLetters.add(input.name, buyer.id, { buyer_id: buyer.id, name: buyer.name }, reason);
        bump('deadLettered');
      }
      progress = true;
    }
    if (input.options.invite.enabled && !ctx.dryRun) {
      const inviteContext = {
        api: input.api,
        state: ctx.state,
        flow: input.name,
        connector: input.connectorName,
        mappings: input.mappings,
        options: input.options.invite,
        signal: ctx.signal,
      };
      // The cap counts new invitations only: customers invited by earlier runs must not use up every run's share.
      const candidates: typeof customers = [];
      for (const customer of inviteCandidates(customers, linked, input.options.invite)) {
        if (wasInvited(customer, inviteContext)) bump('already_invited');
        else candidates.push(customer);
      }
      for (const customer of candidates.slice(0, input.options.invite.max_per_run)) {
        if (budget.stopReason() !== null) return { outcome: 'partial', counts };
        const outcome = await inviteCustomer(customer, inviteContext);
        bump(outcome);
        progress = true;
      }
    }
    return { outcome: 'ok', counts };
  } catch (error) {
    if (ctx.signal.aborted) return { outcome: progress ? 'partial' : 'skipped', counts };
    return { outcome: progress ? 'partial' : 'failed', counts, error: errorMessage(error) };
  }
}
