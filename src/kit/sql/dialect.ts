import type { SqlDialect } from './driver.js';

export type ColumnType = 'text' | 'decimal' | 'integer' | 'boolean' | 'date' | 'timestamp' | 'json';

export interface ColumnSpec {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable?: boolean;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Quotes a possibly schema-qualified identifier from config; anything but plain names is refused. */
export function quoteIdentifier(dialect: SqlDialect, name: string): string {
  return name
    .split('.')
    .map((part) => {
      if (!IDENTIFIER.test(part)) {
        throw new Error(`"${name}" is not a plain table or column name (letters, digits, underscore)`);
      }
      return dialect === 'mssql' ? `[${part}]` : `"${part}"`;
    })
    .join('.');
}

/** Decimal columns are TEXT on SQLite so decimal strings round-trip exactly (SQLite has no exact numeric). */
function columnType(dialect: SqlDialect, type: ColumnType): string {
  switch (type) {
    case 'text':
      return dialect === 'mssql' ? 'NVARCHAR(400)' : 'TEXT';
    case 'decimal':
      // PostgreSQL's unconstrained NUMERIC keeps the scale it was given ("0.10" stays "0.10").
      return dialect === 'sqlite' ? 'TEXT' : dialect === 'pg' ? 'NUMERIC' : 'DECIMAL(19,4)';
    case 'integer':
      return dialect === 'sqlite' ? 'INTEGER' : 'BIGINT';
    case 'boolean':
      return dialect === 'pg' ? 'BOOLEAN' : dialect === 'mssql' ? 'BIT' : 'INTEGER';
    case 'date':
      return dialect === 'sqlite' ? 'TEXT' : 'DATE';
    case 'timestamp':
      return dialect === 'pg' ? 'TIMESTAMPTZ' : dialect === 'mssql' ? 'DATETIMEOFFSET' : 'TEXT';
    case 'json':
      return dialect === 'pg' ? 'JSONB' : dialect === 'mssql' ? 'NVARCHAR(MAX)' : 'TEXT';
  }
}

/** CREATE TABLE when missing; `primaryKey` columns are NOT NULL and form the key. */
export function createTableIfMissing(
  dialect: SqlDialect,
  table: string,
  columns: readonly ColumnSpec[],
  primaryKey: readonly string[],
): string {
  const quotedTable = quoteIdentifier(dialect, table);
  const definitions = columns.map((column) => {
    const keyColumn = primaryKey.includes(column.name);
    const type =
      keyColumn && dialect === 'mssql' && column.type === 'text'
        ? 'NVARCHAR(200)'
        : columnType(dialect, column.type);
    const nullable = !keyColumn && column.nullable !== false;
    return `${quoteIdentifier(dialect, column.name)} ${type}${nullable ? '' : ' NOT NULL'}`;
  });
  if (primaryKey.length > 0) {
    definitions.push(`PRIMARY KEY (${primaryKey.map((name) => quoteIdentifier(dialect, name)).join(', ')})`);
  }
  const body = `(${definitions.join(', ')})`;
  if (dialect === 'mssql') {
    const objectName = table.replace(/'/g, "''");
    return `IF OBJECT_ID(N'${objectName}', N'U') IS NULL CREATE TABLE ${quotedTable} ${body}`;
  }
  return `CREATE TABLE IF NOT EXISTS ${quotedTable} ${body}`;
}

/** An upsert by `keys` binding each column as a named parameter of the same name. */
export function upsertStatement(
  dialect: SqlDialect,
  table: string,
  columns: readonly string[],
  keys: readonly string[],
): string {
  const q = (name: string) => quoteIdentifier(dialect, name);
  const others = columns.filter((name) => !keys.includes(name));
  if (dialect === 'mssql') {
    const source = columns.map((name) => `:${name} AS ${q(name)}`).join(', ');
    const on = keys.map((name) => `t.${q(name)} = s.${q(name)}`).join(' AND ');
    const set = others.map((name) => `${q(name)} = s.${q(name)}`).join(', ');
    const update = set === '' ? '' : ` WHEN MATCHED THEN UPDATE SET ${set}`;
    return (
      `MERGE ${q(table)} WITH (HOLDLOCK) AS t USING (SELECT ${source}) AS s ON ${on}${update}` +
      ` WHEN NOT MATCHED THEN INSERT (${columns.map(q).join(', ')}) VALUES (${columns.map((n) => `s.${q(n)}`).join(', ')});`
    );
  }
  const insert = `INSERT INTO ${q(table)} (${columns.map(q).join(', ')}) VALUES (${columns.map((n) => `:${n}`).join(', ')})`;
  const set = others.map((name) => `${q(name)} = excluded.${q(name)}`).join(', ');
  const conflict = `ON CONFLICT (${keys.map(q).join(', ')}) DO ${set === '' ? 'NOTHING' : `UPDATE SET ${set}`}`;
  return `${insert} ${conflict}`;
}
