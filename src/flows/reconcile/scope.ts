/** The time a reconciliation covers: an accounting period (YYYY-MM) or a range of dates, checked before anything runs. */

export class ScopeError extends Error {
  override readonly name = 'ScopeError';
}

export interface Scope {
  /** For people: "period 2026-03" or "2026-03-01 to 2026-03-15". */
  readonly label: string;
  /** Inclusive, YYYY-MM-DD. */
  readonly from: string;
  readonly to: string;
  /** The accounting periods whose lines are read from the API. */
  readonly periods: readonly string[];
  /** Set for --period: entries are in scope by their period when the books keep one. */
  readonly period: string | null;
}

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;
const MAX_RANGE_MONTHS = 36;

export function parseScope(input: { period?: string; from?: string; to?: string }): Scope {
  const { period, from, to } = input;
  if (period !== undefined) {
    if (from !== undefined || to !== undefined)
      throw new ScopeError('give either --period or --from and --to, not both');
    const match = PERIOD.exec(period);
    if (!match)
      throw new ScopeError(`--period "${period}" is not an accounting period YYYY-MM (e.g. 2026-03)`);
    return {
      label: `period ${period}`,
      from: `${period}-01`,
      to: monthEnd(period),
      periods: [period],
      period,
    };
  }
  if (from === undefined || to === undefined) {
    throw new ScopeError('give --period YYYY-MM, or both --from YYYY-MM-DD and --to YYYY-MM-DD');
  }
  checkDate('--from', from);
  checkDate('--to', to);
  if (from > to) throw new ScopeError(`--from ${from} is after --to ${to}`);
  // A line's accounting period may lie a month before or after its document date.
  const periods = monthsBetween(addMonths(from.slice(0, 7), -1), addMonths(to.slice(0, 7), 1));
  if (periods.length > MAX_RANGE_MONTHS) {
    throw new ScopeError(
      `--from ${from} --to ${to} spans more than ${MAX_RANGE_MONTHS - 2} months; reconcile in parts`,
    );
  }
  return { label: `${from} to ${to}`, from, to, periods, period: null };
}

function checkDate(option: string, value: string): void {
  const parsed = /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Date(`${value}T00:00:00Z`) : null;
  if (parsed === null || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== value) {
    throw new ScopeError(`${option} "${value}" is not a date YYYY-MM-DD`);
  }
}

function monthEnd(period: string): string {
  const [year = 0, month = 1] = period.split('-').map(Number);
  return `${period}-${String(new Date(Date.UTC(year, month, 0)).getUTCDate()).padStart(2, '0')}`;
}

function addMonths(period: string, months: number): string {
  const [year = 0, month = 1] = period.split('-').map(Number);
  const date = new Date(Date.UTC(year, month - 1 + months, 1));
  return date.toISOString().slice(0, 7);
}

function monthsBetween(first: string, last: string): string[] {
  const months: string[] = [];
  for (let month = first; month <= last; month = addMonths(month, 1)) months.push(month);
  return months;
}
