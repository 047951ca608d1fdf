/**
 * The date and number formats a back office writes, as the connector's config names them: `20/11/2026` with
 * `date_format: DD/MM/YYYY`, `"1,250.00"` with `thousands: ","`, `₪ 1,250.00` with `currency_sign: "₪"`. Each cell is
 * turned into the form the API takes (YYYY-MM-DD, a plain decimal) or refused with what was expected.
 */

export const DATE_FORMATS = ['YYYY-MM-DD', 'DD/MM/YYYY', 'DD.MM.YYYY', 'DD-MM-YYYY', 'MM/DD/YYYY'] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

export interface CellFormats {
  readonly dateFormat: DateFormat;
  /** The decimal mark: "." or ",". */
  readonly decimal: '.' | ',';
  /** The thousands separator the amounts may carry ("" for none). */
  readonly thousands: '' | ',' | '.' | ' ' | "'";
  /** A currency sign the amounts may carry before or after the number (for example ₪); null for none. */
  readonly currencySign: string | null;
}

export const DEFAULT_FORMATS: CellFormats = {
  dateFormat: 'YYYY-MM-DD',
  decimal: '.',
  thousands: '',
  currencySign: null,
};

const DATE_PARTS: Record<DateFormat, RegExp> = {
  'YYYY-MM-DD': /^(?<y>\d{4})-(?<m>\d{1,2})-(?<d>\d{1,2})$/,
  'DD/MM/YYYY': /^(?<d>\d{1,2})\/(?<m>\d{1,2})\/(?<y>\d{4})$/,
  'DD.MM.YYYY': /^(?<d>\d{1,2})\.(?<m>\d{1,2})\.(?<y>\d{4})$/,
  'DD-MM-YYYY': /^(?<d>\d{1,2})-(?<m>\d{1,2})-(?<y>\d{4})$/,
  'MM/DD/YYYY': /^(?<m>\d{1,2})\/(?<d>\d{1,2})\/(?<y>\d{4})$/,
};

/** The date as YYYY-MM-DD, or null when it is not a real date in the format. */
export function normalDate(value: string, format: DateFormat): string | null {
  const parts = DATE_PARTS[format].exec(value)?.groups;
  if (parts === undefined) return null;
  const [y, m, d] = [Number(parts['y']), Number(parts['m']), Number(parts['d'])];
  const date = new Date(Date.UTC(y, m - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== m - 1 || date.getUTCDate() !== d) return null;
  return `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The amount as a plain decimal ("1250.00"), or null when it does not follow the formats. */
export function normalAmount(value: string, formats: CellFormats): string | null {
  let text = value.trim();
  const sign = formats.currencySign;
  if (sign !== null && sign !== '') {
    text = text.replace(new RegExp(`^(-?)\\s*${escaped(sign)}\\s*|\\s*${escaped(sign)}$`, 'u'), '$1').trim();
  }
  const group = formats.thousands === '' ? null : escaped(formats.thousands);
  const whole = group === null ? '\\d+' : `\\d{1,3}(?:${group}\\d{3})*|\\d+`;
  const pattern = new RegExp(`^(-?)(${whole})(?:${escaped(formats.decimal)}(\\d+))?$`);
  const match = pattern.exec(text);
  if (match === null) return null;
  const digits = group === null ? (match[2] ?? '') : (match[2] ?? '').split(formats.thousands).join('');
  return `${match[1] ?? ''}${digits}${match[3] === undefined ? '' : `.${match[3]}`}`;
}

/** What a refused cell should look like, for the file's error. */
export function expectedAmount(formats: CellFormats): string {
  const group = formats.thousands === '' ? '' : `1${formats.thousands}`;
  const sign = formats.currencySign === null ? '' : ` (optionally with ${formats.currencySign})`;
  return `a number like ${group}250${formats.decimal}00${sign}`;
}
