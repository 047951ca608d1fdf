/**
 * Turns a balanced list of journal entries into import movements. Each movement carries up to two debit and two
 * credit accounts and balances on its own, which is what the import's temporary batch checks. Entries are split
 * into segments that balance (a document's lines), and each segment's debits are paired with its credits in order.
 */
import type { JournalEntry } from '../../src/connector-contract/journal.js';
import { parseMoney } from '../../src/shared/decimal.js';

export interface Movement {
  /** The entry that opened the movement: reference, dates, movement type and details come from it. */
  readonly head: JournalEntry;
  readonly debits: { account: string; amount: bigint }[];
  readonly credits: { account: string; amount: bigint }[];
}

/** An entry with its amount in agorot, parsed once. */
interface Priced {
  readonly entry: JournalEntry;
  readonly amount: bigint;
}

interface Open {
  readonly entry: JournalEntry;
  remaining: bigint;
}

export class UnbalancedEntriesError extends Error {}

/** Splits entries into consecutive runs whose debits equal their credits. */
function balancedSegments(entries: readonly Priced[]): Priced[][] {
  const segments: Priced[][] = [];
  let current: Priced[] = [];
  let balance = 0n;
  for (const priced of entries) {
    current.push(priced);
    balance += priced.entry.side === 'debit' ? priced.amount : -priced.amount;
    if (balance === 0n) {
      segments.push(current);
      current = [];
    }
  }
  if (current.length > 0) {
    throw new UnbalancedEntriesError(
      `entries from line ${current[0]?.entry.lineNumber ?? '?'} on do not balance (difference ${balance} agorot)`,
    );
  }
  return segments;
}

/** Pairs debits with credits in order (splitting amounts where needed), then packs pairs into movements. */
function segmentMovements(segment: readonly Priced[]): Movement[] {
  const debits: Open[] = [];
  const credits: Open[] = [];
  for (const { entry, amount } of segment) {
    if (amount === 0n) continue;
    (entry.side === 'debit' ? debits : credits).push({ entry, remaining: amount });
  }
  const movements: Movement[] = [];
  let current: Movement | undefined;
  let d = 0;
  let c = 0;
  while (d < debits.length && c < credits.length) {
    const debit = debits[d];
    const credit = credits[c];
    if (debit === undefined || credit === undefined) break;
    const amount = debit.remaining < credit.remaining ? debit.remaining : credit.remaining;
    if (current === undefined || !place(current, debit.entry.account, credit.entry.account, amount)) {
      current = { head: debit.entry, debits: [], credits: [] };
      movements.push(current);
      place(current, debit.entry.account, credit.entry.account, amount);
    }
    debit.remaining -= amount;
    credit.remaining -= amount;
    if (debit.remaining === 0n) d += 1;
    if (credit.remaining === 0n) c += 1;
  }
  return movements;
}

/** Adds a debit/credit pair to a movement when both sides have room (same account, or a free slot). */
function place(movement: Movement, debitAccount: string, creditAccount: string, amount: bigint): boolean {
  const debitSlot = slotFor(movement.debits, debitAccount);
  const creditSlot = slotFor(movement.credits, creditAccount);
  if (debitSlot === null || creditSlot === null) return false;
  add(movement.debits, debitSlot, debitAccount, amount);
  add(movement.credits, creditSlot, creditAccount, amount);
  return true;
}

function slotFor(slots: readonly { account: string }[], account: string): number | null {
  const existing = slots.findIndex((slot) => slot.account === account);
  if (existing >= 0) return existing;
  return slots.length < 2 ? slots.length : null;
}

function add(
  slots: { account: string; amount: bigint }[],
  index: number,
  account: string,
  amount: bigint,
): void {
  const slot = slots[index];
  if (slot === undefined) slots.push({ account, amount });
  else slot.amount += amount;
}

export function toMovements(entries: readonly JournalEntry[]): Movement[] {
  const priced = entries.map((entry) => ({ entry, amount: parseMoney(entry.amount) }));
  return balancedSegments(priced).flatMap(segmentMovements);
}
