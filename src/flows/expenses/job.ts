/**
 * The expenses job: each pending expense of the source is sent once (send.ts); what the API or the contract
 * refuses is filed as a dead letter naming the rule and the field, and waits until the source changes it.
 */
import { stat } from 'node:fs/promises';
import type { ExpenseSource, SourceExpense } from '../../connector-contract/index.js';
import {
  contentHash,
  errorMessage,
  FailureTracker,
  RunBudget,
  type Job,
  type JobContext,
  type RunResult,
} from '../../engine/index.js';
import type { Mappings } from '../../plugin/index.js';
import { countHeldBackFor, type HeldBackReasons } from '../shared/held-back.js';
import { fileRejectedFiles, type RejectedFileWords } from '../shared/rejected-files.js';
import type { ExpensesApi } from './api.js';
import { buildExpenseBody } from './body.js';
import { expenseValueMaps, type ExpenseValueMaps } from './mapping.js';
import type { ExpensesOptions } from './options.js';
import { ExpenseProgressStore } from './progress.js';
import type { Refusal } from './refusal.js';
import { sendExpense, type SendContext } from './send.js';

export interface ExpensesJobInput {
  readonly name: string;
  readonly api: ExpensesApi;
  /** Looked up at run time, so a connector that is down fails the run, not the daemon's start. */
  readonly source: () => ExpenseSource;
  /** jobs.<name>.options as expensesOptionsSchema parsed them. */
  readonly options: ExpensesOptions;
  readonly mappings?: Mappings;
}

/** The dead letter's record: enough to find the expense in the source and to tell a fixed one from the same. */
export interface ExpenseDeadLetter {
  ref: string;
  vendor: string;
  docNumber: string | null;
  docDate: string;
  refusals: Refusal[];
  contentHash: string;
}

const add = (counts: Record<string, number>, name: string, n = 1): void => {
  counts[name] = (counts[name] ?? 0) + n;
};

export function createExpensesJob(input: ExpensesJobInput): Job {
  // The value maps are made at each run: a config reload of the mappings applies from the next run on.
  return {
    name: input.name,
    run: (ctx) => runExpenses(input, expenseValueMaps(input.mappings ?? {}, input.options), ctx),
  };
}

const EXPENSES_FILES: RejectedFileWords = {
  kind: 'expenses',
  fix: "fix the file, or the connector's date_format, decimal, thousands or currency_sign to match it",
};

/** What one run counts: its counts, and what it delivered and held back (with why) for the engine's judgeRun. */
interface RunTallies {
  readonly counts: Record<string, number>;
  readonly tracker: FailureTracker;
  readonly reasons: HeldBackReasons;
}

async function runExpenses(
  input: ExpensesJobInput,
  maps: ExpenseValueMaps,
  ctx: JobContext,
): Promise<RunResult> {
  const tallies: RunTallies = { counts: {}, tracker: new FailureTracker(ctx.errorThreshold), reasons: {} };
  const result = await expensesRun(input, maps, ctx, tallies);
  return { ...result, tally: tallies.tracker.tally('expenses', tallies.reasons) };
}

async function expensesRun(
  input: ExpensesJobInput,
  maps: ExpenseValueMaps,
  ctx: JobContext,
  tallies: RunTallies,
): Promise<RunResult> {
  const { counts, tracker } = tallies;
  const budget = new RunBudget(ctx.clock, ctx.budgetMs, ctx.signal);
  try {
    const source = input.source();
    const pending = await source.listPendingExpenses({ dryRun: ctx.dryRun });
    counts['expenses_pending'] = pending.length;
    tracker.failure(
      fileRejectedFiles(input.name, ctx, source.rejectedFiles?.() ?? [], EXPENSES_FILES, tallies),
    );
    const todo: SourceExpense[] = [];
    for (const expense of pending) {
      if (!(await waitingDeadLetter(input, ctx, expense, counts))) todo.push(expense);
    }
    if (ctx.dryRun) return preview(todo, maps, tallies);
    const send: SendContext = {
      job: input.name,
      api: input.api,
      source,
      progress: new ExpenseProgressStore(ctx.state, input.name),
      maps,
      clock: ctx.clock,
      markSent: input.options.mark_sent,
      reuseWindowMs: input.options.file_reuse_window_ms,
      signal: ctx.signal,
      onUpload: () => add(counts, 'files_uploaded'),
    };
    let unsettled = 0;
    for (const expense of todo) {
      if (budget.stopReason() !== null) return { outcome: 'partial', counts };
      const settled = await sendOne(input, ctx, send, expense, tallies);
      if (settled === 'dead_lettered') tracker.failure();
      else if (settled === 'sent') tracker.succeeded();
      else unsettled += 1;
    }
    return { outcome: unsettled === 0 ? 'ok' : 'partial', counts };
  } catch (error) {
    if (ctx.signal.aborted) return { outcome: 'partial', counts };
    ctx.logger.error({ err: errorMessage(error) }, 'expenses run failed');
    return { outcome: 'failed', counts, error: errorMessage(error) };
  }
}

/**
 * What the source holds for the expense: its fields and, for each receipt, the file's size and modification time,
 * so a receipt replaced under the same name (a smaller scan) counts as a fix too.
 */
async function sourceFingerprint(expense: SourceExpense): Promise<string> {
  const files = await Promise.all(
    expense.attachmentPaths.map(async (path) => {
      try {
        const info = await stat(path);
        return [info.size, info.mtimeMs];
      } catch {
        return null;
      }
    }),
  );
  return contentHash({ expense, files });
}

/** An open dead letter for the same content waits for a fix in the source or a replay; a changed one is retried. */
async function waitingDeadLetter(
  input: ExpensesJobInput,
  ctx: JobContext,
  expense: SourceExpense,
  counts: Record<string, number>,
): Promise<boolean> {
  const letter = ctx.state.deadLetters.get(input.name, expense.ref);
  if (letter === null || letter.status !== 'open') return false;
  const record = letter.record as Partial<ExpenseDeadLetter> | null;
  if (record?.contentHash !== (await sourceFingerprint(expense))) return false;
  add(counts, 'dead_letters_waiting');
  return true;
}

/** How the expense's send ended: sent, filed as a dead letter, or left for the next run. */
async function sendOne(
  input: ExpensesJobInput,
  ctx: JobContext,
  send: SendContext,
  expense: SourceExpense,
  { counts, reasons }: RunTallies,
): Promise<'sent' | 'dead_lettered' | 'retry'> {
  try {
    const result = await sendExpense(send, expense);
    if (result.kind === 'sent') {
      add(counts, `expenses_${result.how}`);
      ctx.state.deadLetters.resolve(input.name, expense.ref);
      return 'sent';
    }
    if (result.kind === 'rejected') {
      const record: ExpenseDeadLetter = {
        ref: expense.ref,
        vendor: expense.vendor,
        docNumber: expense.docNumber,
        docDate: expense.docDate,
        refusals: result.refusals,
        contentHash: await sourceFingerprint(expense),
      };
      ctx.state.deadLetters.add(input.name, expense.ref, record, result.reason);
      add(counts, 'dead_lettered');
      countHeldBackFor(reasons, result.reason);
      ctx.logger.warn({ expense: expense.ref, reason: result.reason }, 'expense filed as a dead letter');
      return 'dead_lettered';
    }
    ctx.logger.warn({ expense: expense.ref, reason: result.reason }, 'expense not sent; retried next run');
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    ctx.logger.warn({ expense: expense.ref, err: errorMessage(error) }, 'expense not sent; retried next run');
  }
  add(counts, 'expenses_failed');
  return 'retry';
}

function preview(expenses: readonly SourceExpense[], maps: ExpenseValueMaps, tallies: RunTallies): RunResult {
  for (const expense of expenses) {
    const built = buildExpenseBody(expense, maps);
    add(tallies.counts, built.ok ? 'expenses_would_send' : 'expenses_would_dead_letter');
    if (built.ok) tallies.tracker.succeeded();
    else tallies.tracker.failure();
  }
  return { outcome: 'ok', counts: tallies.counts };
}
