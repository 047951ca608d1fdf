/**
 * Neutral value formats shared by every connector shape. Money and quantities are decimal strings, never floats:
 * a connector converts its storage type to a canonical string and back without rounding.
 */

/** Decimal string such as "1234.50" or "-3.125". */
export type DecimalString = string;
/** Calendar date "YYYY-MM-DD". */
export type IsoDate = string;
/** Accounting period "YYYY-MM". */
export type Period = string;
