/** Mirror table layout and the mapping from an API record to a row: base columns plus configured flat columns. */
import type {
  MirrorColumn,
  MirrorColumnType,
  MirrorRow,
  MirrorTableSpec,
  MirrorValue,
} from '../../connector-contract/index.js';
import type { MirrorOptions } from './options.js';
import type { ApiRecord, MirrorResourceName } from './resources.js';

interface FlatColumn extends MirrorColumn {
  readonly path: readonly string[];
}

export interface MirrorTable {
  readonly spec: MirrorTableSpec;
  toRow(record: ApiRecord, id: string, syncedAt: string): MirrorRow;
}

const BASE: readonly MirrorColumn[] = [
  { name: 'updated_at', type: 'timestamp' },
  { name: 'deleted_at', type: 'timestamp' },
  { name: 'record', type: 'json' },
  { name: 'synced_at', type: 'timestamp' },
];

function flatColumns(options: MirrorOptions, resource: MirrorResourceName): FlatColumn[] {
  const configured = options.columns[resource] ?? {};
  return Object.entries(configured).map(([name, source]) => {
    const path = typeof source === 'string' ? source : source.path;
    const type: MirrorColumnType = typeof source === 'string' ? 'text' : source.type;
    return { name, type, path: path.split('.') };
  });
}

function valueAt(record: ApiRecord, path: readonly string[]): unknown {
  let value: unknown = record;
  for (const key of path) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Converts a field to what the column type binds: objects as JSON text, nothing else re-interpreted. */
function columnValue(value: unknown, type: MirrorColumnType): MirrorValue {
  if (value === undefined || value === null) return null;
  if (type === 'json') return JSON.stringify(value);
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  return String(value);
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null);

export function mirrorTable(options: MirrorOptions, resource: MirrorResourceName): MirrorTable {
  const flat = flatColumns(options, resource);
  const spec: MirrorTableSpec = {
    name: resource,
    columns: [...BASE, ...flat.map(({ name, type }) => ({ name, type }))],
  };
  return {
    spec,
    toRow(record, id, syncedAt) {
      const row: Record<string, MirrorValue> = {
        id,
        updated_at: stringOrNull(record['updated_at']),
        deleted_at: stringOrNull(record['deleted_at']),
        record: JSON.stringify(record),
        synced_at: syncedAt,
      };
      for (const column of flat) row[column.name] = columnValue(valueAt(record, column.path), column.type);
      return row;
    },
  };
}
