import type { MirrorSink } from '../../src/connector-contract/capabilities.js';
import type { MirrorRow, MirrorTableSpec } from '../../src/connector-contract/mirror.js';
import { createTableIfMissing, upsertStatement, type ColumnSpec } from '../../src/kit/sql/dialect.js';
import type { SqlDriver, SqlValue } from '../../src/kit/sql/driver.js';

/** Mirror tables for BI tools: `id` primary key plus configured columns, upserted in one transaction per call. */
export class SqlMirrorSink implements MirrorSink {
  readonly #ensured = new Set<string>();

  constructor(
    private readonly driver: SqlDriver,
    private readonly tablePrefix: string,
  ) {}

  async ensureTable(spec: MirrorTableSpec): Promise<void> {
    const table = this.#table(spec);
    if (this.#ensured.has(table)) return;
    const columns: ColumnSpec[] = [
      { name: 'id', type: 'text', nullable: false },
      ...spec.columns.filter((column) => column.name !== 'id'),
    ];
    await this.driver.query(createTableIfMissing(this.driver.dialect, table, columns, ['id']));
    this.#ensured.add(table);
  }

  async upsertRows(spec: MirrorTableSpec, rows: readonly MirrorRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    await this.ensureTable(spec);
    const columns = ['id', ...spec.columns.map((column) => column.name).filter((name) => name !== 'id')];
    const sql = upsertStatement(this.driver.dialect, this.#table(spec), columns, ['id']);
    return this.driver.transaction(async (tx) => {
      for (const row of rows) {
        const params: Record<string, SqlValue> = {};
        for (const name of columns) params[name] = row[name] ?? null;
        await tx.query(sql, params);
      }
      return rows.length;
    });
  }

  #table(spec: MirrorTableSpec): string {
    return `${this.tablePrefix}${spec.name}`;
  }
}
