/**
 * Source codes -> API values through the tables under `mappings:`. The tables run API value -> source value, as
 * every table of the config does, so they are inverted here. A value the table lists on its API side is already an
 * API value and passes as it is; a table the config does not have maps nothing, so the source's codes are sent
 * unchanged (the API then names a code it does not know).
 */
import type { Mappings } from '../../plugin/index.js';
import type { ExpensesOptions } from './options.js';

export type MappedField = 'vendor' | 'category' | 'branch' | 'purchase type';

export class UnmappedValueError extends Error {
  constructor(
    readonly field: MappedField,
    readonly value: string,
    readonly table: string,
  ) {
    super(
      `${field} "${value}" is not in mappings.${table} (add the API value with "${value}" as its source value)`,
    );
    this.name = 'UnmappedValueError';
  }
}

class ValueMap {
  private readonly toApi = new Map<string, string>();
  private readonly apiValues: Set<string>;

  constructor(
    private readonly field: MappedField,
    private readonly tableName: string,
    private readonly table: Readonly<Record<string, string>> | undefined,
  ) {
    for (const [apiValue, sourceValue] of Object.entries(table ?? {})) this.toApi.set(sourceValue, apiValue);
    this.apiValues = new Set(Object.keys(table ?? {}));
  }

  apiValue(sourceValue: string): string {
    if (this.table === undefined) return sourceValue;
    const mapped = this.toApi.get(sourceValue);
    if (mapped !== undefined) return mapped;
    if (this.apiValues.has(sourceValue)) return sourceValue;
    throw new UnmappedValueError(this.field, sourceValue, this.tableName);
  }
}

export interface ExpenseValueMaps {
  vendor: ValueMap;
  category: ValueMap;
  branch: ValueMap;
  purchaseType: ValueMap;
}

export function expenseValueMaps(mappings: Mappings, options: ExpensesOptions): ExpenseValueMaps {
  const map = (field: MappedField, table: string) => new ValueMap(field, table, mappings[table]);
  return {
    vendor: map('vendor', options.vendor_mapping),
    category: map('category', options.category_mapping),
    branch: map('branch', options.branch_mapping),
    purchaseType: map('purchase type', options.purchase_type_mapping),
  };
}
