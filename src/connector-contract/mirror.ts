export type MirrorColumnType = 'text' | 'decimal' | 'integer' | 'boolean' | 'date' | 'timestamp' | 'json';

export interface MirrorColumn {
  readonly name: string;
  readonly type: MirrorColumnType;
}

/** A mirror table: `id` text primary key plus the listed columns. */
export interface MirrorTableSpec {
  readonly name: string;
  readonly columns: readonly MirrorColumn[];
}

export type MirrorValue = string | number | boolean | null;
export type MirrorRow = Readonly<Record<string, MirrorValue>>;
