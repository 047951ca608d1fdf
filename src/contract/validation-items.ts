/**
 * Turns zod issues into the contract's ValidationErrorItem list (`field` as a JSON path such as `lines[0].total`,
 * `code` from the contract's item codes), so a strict validator can answer 422 validation_error.
 */
import type * as z from 'zod';
import { formatPath, valueAt } from './drift.js';

export interface ValidationItem {
  field: string;
  code: string;
  message: string;
}

export function validationItemsFrom(error: z.ZodError, input: unknown): ValidationItem[] {
  const items: ValidationItem[] = [];
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        items.push({
          field: formatPath([...issue.path, key]),
          code: 'unsupported_value',
          message: 'unknown field',
        });
      }
      continue;
    }
    items.push({ field: formatPath(issue.path), code: itemCode(issue, input), message: issue.message });
  }
  return items;
}

function itemCode(issue: z.core.$ZodIssue, input: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return valueAt(input, issue.path) === undefined ? 'required' : 'invalid_format';
    case 'too_big':
      return issue.origin === 'string' ? 'too_long' : 'out_of_range';
    case 'too_small':
      return issue.origin === 'string' ? 'too_short' : 'out_of_range';
    case 'invalid_value':
      return 'invalid_enum';
    case 'custom': {
      const code: unknown = issue.params?.['itemCode'];
      return typeof code === 'string' ? code : 'invalid_format';
    }
    default:
      return 'invalid_format';
  }
}
