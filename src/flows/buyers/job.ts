/** The buyers job: map every linked buyer to its ERP customer, then invite the ERP customers not linked yet. */
import type { ApiClient } from '../../client/index.js';
import type { CustomerDirectory, ErpCustomer } from '../../connector-contract/index.js';
import type { SupplierBuyer } from '../../contract/index.js';
import type { Mappings } from '../../plugin/index.js';
import { errorMessage, RunBudget, type Job, type JobContext, type RunResult } from '../../engine/index.js';
import { tallyOf } from '../shared/held-back.js';
import { recordFailureReason } from '../shared/failures.js';
import { inviteCandidates, inviteCustomer, wasInvited, type InviteContext } from './invite.js';
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

/** What the steps of one run share. */
interface BuyersRun {
  readonly input: BuyersJobInput;
  readonly ctx: JobContext;
  readonly counts: Record<string, number>;
  readonly budget: RunBudget;
  /** Whether a link or an invitation was attempted in this run (one that failed is filed as a dead letter). */
  progress: boolean;
}

export function createBuyersJob(input: BuyersJobInput): Job {
  return { name: input.name, run: (ctx) => runBuyers(input, ctx) };
}

/** The run, with the buyers it linked or invited and those it held back as its tally (the engine judges it). */
async function runBuyers(input: BuyersJobInput, ctx: JobContext): Promise<RunResult> {
  const counts: Record<string, number> = {};
  const result = await buyersRun(input, ctx, counts);
  const tally = tallyOf(counts, 'buyers', {
    delivered: ['updated', 'unchanged', 'would_link', 'invited'],
    heldBack: ['unmatched', 'deadLettered'],
  });
  return { ...result, tally };
}

async function buyersRun(
  input: BuyersJobInput,
  ctx: JobContext,
  counts: Record<string, number>,
): Promise<RunResult> {
  const run: BuyersRun = {
    input,
    ctx,
    counts,
    budget: new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal),
    progress: false,
  };
  try {
    const customers = await input.directory.listCustomers();
    const matcher = new CustomerMatcher(customers, input.options, input.mappings);
    const { buyers, linked } = await listBuyers(input, ctx.signal);
    for (const buyer of buyers) {
      if (run.budget.stopReason() !== null) return { outcome: run.progress ? 'partial' : 'skipped', counts };
      await linkOne(run, matcher, buyer, linked);
    }
    if (input.options.invite.enabled && !ctx.dryRun) {
      if (!(await inviteUnlinked(run, customers, linked))) return { outcome: 'partial', counts };
    }
    return { outcome: 'ok', counts };
  } catch (error) {
    if (ctx.signal.aborted) return { outcome: run.progress ? 'partial' : 'skipped', counts };
    return { outcome: run.progress ? 'partial' : 'failed', counts, error: errorMessage(error) };
  }
}

/** Every buyer of the supplier, and the customer numbers they are linked to. */
async function listBuyers(
  input: BuyersJobInput,
  signal: AbortSignal,
): Promise<{ buyers: SupplierBuyer[]; linked: Set<string> }> {
  const linked = new Set<string>();
  const buyers: SupplierBuyer[] = [];
  for await (const buyer of input.api.supplierBuyers.list({ limit: 200, signal }).items()) {
    buyers.push(buyer);
    if (buyer.customer_number) linked.add(buyer.customer_number);
  }
  return { buyers, linked };
}

/** Links the buyer to the ERP customer it matches (adding it to `linked`), or files it as a dead letter. */
async function linkOne(
  run: BuyersRun,
  matcher: CustomerMatcher,
  buyer: SupplierBuyer,
  linked: Set<string>,
): Promise<void> {
  const { input, ctx, counts } = run;
  if (buyer.status !== 'active' && !input.options.include_inactive) {
    bump(counts, 'inactive');
    return;
  }
  const match = matcher.match(buyer);
  if (!match.ok) {
    ctx.state.deadLetters.add(input.name, buyer.id, { buyer_id: buyer.id, name: buyer.name }, match.reason);
    bump(counts, 'unmatched');
    return;
  }
  linked.add(match.customer.customerNumber);
  if (ctx.dryRun) {
    bump(counts, 'would_link');
    return;
  }
  try {
    bump(counts, (await linkBuyer(input.api, buyer, match.customer, ctx.signal)) ? 'updated' : 'unchanged');
    ctx.state.deadLetters.resolve(input.name, buyer.id);
  } catch (error) {
    const reason = recordFailureReason(error, ctx.signal);
    ctx.state.deadLetters.add(input.name, buyer.id, { buyer_id: buyer.id, name: buyer.name }, reason);
    bump(counts, 'deadLettered');
  }
  run.progress = true;
}

/** Invites the customers no buyer is linked to; false when the budget ran out first. */
async function inviteUnlinked(
  run: BuyersRun,
  customers: readonly ErpCustomer[],
  linked: ReadonlySet<string>,
): Promise<boolean> {
  const { input, ctx, counts } = run;
  const inviteContext: InviteContext = {
    api: input.api,
    state: ctx.state,
    flow: input.name,
    connector: input.connectorName,
    mappings: input.mappings,
    options: input.options.invite,
    signal: ctx.signal,
  };
  // The cap counts new invitations only: customers invited by earlier runs must not use up every run's share.
  const candidates: ErpCustomer[] = [];
  for (const customer of inviteCandidates(customers, linked, input.options.invite)) {
    if (wasInvited(customer, inviteContext)) bump(counts, 'already_invited');
    else candidates.push(customer);
  }
  for (const customer of candidates.slice(0, input.options.invite.max_per_run)) {
    if (run.budget.stopReason() !== null) return false;
    const outcome = await inviteCustomer(customer, inviteContext);
    bump(counts, outcome);
    run.progress = true;
  }
  return true;
}

function bump(counts: Record<string, number>, key: string): void {
  counts[key] = (counts[key] ?? 0) + 1;
}
