/** The shared formats of part 2.1, identical in strict and lenient mode: a malformed amount is never "drift". */
import * as z from 'zod';
import { MONEY_PATTERN, QUANTITY_PATTERN } from '../shared/decimal.js';

/** Decimal string with exactly 2 fraction digits; the currency lives on the parent object. */
export const Money = z
  .string()
  .regex(MONEY_PATTERN, { message: 'expected money: a decimal string with exactly 2 fraction digits' });

/** Decimal string with up to 3 fraction digits. */
export const Quantity = z
  .string()
  .regex(QUANTITY_PATTERN, { message: 'expected a quantity: a decimal string with up to 3 fraction digits' });

/** Calendar date YYYY-MM-DD (validated, so 2025-02-29 is rejected). */
export const DateString = z.iso.date({ message: 'expected a date YYYY-MM-DD' });

/** RFC 3339 timestamp with a mandatory UTC offset (Z or ±HH:MM). */
export const Timestamp = z.iso.datetime({
  offset: true,
  message: 'expected an RFC 3339 timestamp with a UTC offset',
});

export const ACCOUNTING_PERIOD_PATTERN = /^\d{4}-(?:0[1-9]|1[0-2])$/;
/** YYYY-MM. */
export const AccountingPeriod = z
  .string()
  .regex(ACCOUNTING_PERIOD_PATTERN, { message: 'expected an accounting period YYYY-MM' });

/** Time of day HH:MM (TimeWindow). */
export const TimeOfDay = z
  .string()
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, { message: 'expected a time of day HH:MM' });

/** Percentages in reports: decimal strings with 2 fraction digits (same shape as money). */
export const Percentage = z
  .string()
  .regex(MONEY_PATTERN, { message: 'expected a percentage with 2 fraction digits' });

export const Id = z.string().min(1);
export const Uri = z.url();
export const Email = z.email();
export const NonNegativeInt = z.int().nonnegative();
