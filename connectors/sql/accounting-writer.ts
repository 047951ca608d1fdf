import type { AccountingWriter } from '../../src/connector-contract/capabilities.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { JournalBatch, JournalEntry, WriteResult } from '../../src/connector-contract/journal.js';
import { systemClock, type Clock } from '../../src/shared/clock.js';
import {
  createTableIfMissing,
  quoteIdentifier,
  type ColumnSpec,
  type ColumnType,
} from '../../src/kit/sql/dialect.js';
import type { SqlDriver, SqlExecutor, SqlValue } from '../../src/kit/sql/driver.js';
import type { JournalColumnField, JournalTableConfig } from './journal-config.js';
import { SqlJournalReadBack } from './journal-read.js';
import {
  lostCompanionProblem,
  schemaProblem,
  settingOf,
  targetError,
  targetProblem,
  type JournalOrigin,
} from './journal-target.js';

const DECIMAL = /^\d+(\.\d+)?$/;
const ZERO = '0.00';

const fieldTypes: Record<JournalColumnField, ColumnType> = {
  batch_key: 'text',
  line_number: 'integer',
  side: 'text',
  account: 'text',
  counter_account: 'text',
  amount: 'decimal',
  debit: 'decimal',
  credit: 'decimal',
  currency: 'text',
  date: 'date',
  value_date: 'date',
  period: 'text',
  reference: 'text',
  reference2: 'text',
  branch_code: 'text',
  movement_type: 'text',
  description: 'text',
  source_ids: 'text',
};

/**
 * Writes journal batches into the user's table, one transaction per batch. The batch key is stored in the same
 * transaction (companion table or a column), so a batch is either fully present with its key or absent.
 */
export class SqlAccountingWriter implements AccountingWriter {
  readonly #mapped: [JournalColumnField, string][];
  readonly readBack: SqlJournalReadBack;
  readonly #origin: JournalOrigin;
  #prepared: Promise<void> | undefined;

  /** `configFile`: the file the connector's block came from, named with the key in every error about a setting. */
  constructor(
    private readonly driver: SqlDriver,
    private readonly config: JournalTableConfig,
    private readonly connectorName: string,
    private readonly clock: Clock = systemClock,
    configFile?: string,
  ) {
    this.#origin = { connector: connectorName, configFile };
    this.readBack = new SqlJournalReadBack(driver, config, this.#origin);
    this.#mapped = Object.entries(config.columns).filter(
      (pair): pair is [JournalColumnField, string] => pair[1] !== undefined,
    );
  }

  async hasBatch(batchKey: string): Promise<boolean> {
    await this.#prepare();
    return this.#hasBatch(this.driver, batchKey);
  }

  async writeJournalBatch(batch: JournalBatch): Promise<WriteResult> {
    validateBatch(batch, this.connectorName);
    await this.#prepare();
    const location = this.config.table;
    return this.driver.transaction(async (tx) => {
      if (await this.#hasBatch(tx, batch.batchKey)) {
        return {
          batchKey: batch.batchKey,
          status: 'already_written',
          entryCount: batch.entries.length,
          location,
        };
      }
      if (this.config.batch_key_store === 'table') {
        await tx.query(
          `INSERT INTO ${this.#q(this.config.batch_key_table)} (batch_key, entry_count, written_at) VALUES (:batch_key, :entry_count, :written_at)`,
          {
            batch_key: batch.batchKey,
            entry_count: batch.entries.length,
            written_at: new Date(this.clock.now()).toISOString(),
          },
        );
      }
      const insert = this.#insertStatement();
      for (const entry of batch.entries) {
        await tx.query(insert, this.#rowParams(batch.batchKey, entry));
      }
      return { batchKey: batch.batchKey, status: 'written', entryCount: batch.entries.length, location };
    });
  }

  /** Creates tables when configured to; otherwise only the companion table, which supply-sync owns. */
  ensureTables(): Promise<void> {
    return this.#prepare();
  }

  /** For doctor: what a run would stumble on before writing a row, with the setting at fault; null when nothing. */
  async targetProblem(): Promise<{ detail: string; fix: string } | null> {
    const problem = await targetProblem(this.driver, this.config);
    if (problem === null) return null;
    return { detail: `${settingOf(this.#origin, problem.key)}: ${problem.detail}`, fix: problem.fix };
  }

  /** For dry runs: throws what a run would throw about the tables before writing a row; changes nothing. */
  async checkTarget(): Promise<void> {
    const problem = await targetProblem(this.driver, this.config);
    if (problem !== null) throw targetError(this.#origin, problem);
  }

  #prepare(): Promise<void> {
    this.#prepared ??= this.#createTables().catch((error: unknown) => {
      this.#prepared = undefined;
      throw error;
    });
    return this.#prepared;
  }

  async #createTables(): Promise<void> {
    const dialect = this.driver.dialect;
    const missing =
      (await schemaProblem(this.driver, this.config)) ??
      (await lostCompanionProblem(this.driver, this.config));
    if (missing !== null) throw targetError(this.#origin, missing);
    if (this.config.batch_key_store === 'table') {
      await this.driver.query(
        createTableIfMissing(
          dialect,
          this.config.batch_key_table,
          [
            { name: 'batch_key', type: 'text' },
            { name: 'entry_count', type: 'integer' },
            { name: 'written_at', type: 'text' },
          ],
          ['batch_key'],
        ),
      );
    }
    if (this.config.create_tables) {
      const columns: ColumnSpec[] = [
        ...this.#mapped.map(([field, column]) => ({ name: column, type: fieldTypes[field] })),
        ...Object.entries(this.config.constants).map(([column, value]) => ({
          name: column,
          type: (typeof value === 'number' ? 'decimal' : 'text') as ColumnType,
        })),
      ];
      const { batch_key: batchKey, line_number: lineNumber } = this.config.columns;
      // Line numbers restart in every batch: batch and line together name one row, for reconcile and for a person.
      const key = batchKey !== undefined && lineNumber !== undefined ? [batchKey, lineNumber] : [];
      await this.driver.query(createTableIfMissing(dialect, this.config.table, columns, key));
    }
  }

  async #hasBatch(executor: SqlExecutor, batchKey: string): Promise<boolean> {
    const column = this.config.columns.batch_key;
    const sql =
      this.config.batch_key_store === 'table'
        ? `SELECT COUNT(*) AS n FROM ${this.#q(this.config.batch_key_table)} WHERE batch_key = :batch_key`
        : `SELECT COUNT(*) AS n FROM ${this.#q(this.config.table)} WHERE ${this.#q(column ?? 'batch_key')} = :batch_key`;
    const { rows } = await executor.query(sql, { batch_key: batchKey });
    return Number(rows[0]?.['n'] ?? 0) > 0;
  }

  #insertStatement(): string {
    const columns = [...this.#mapped.map(([, column]) => column), ...Object.keys(this.config.constants)];
    const params = [
      ...this.#mapped.map(([field]) => `:${field}`),
      ...Object.keys(this.config.constants).map((_, i) => `:constant_${i}`),
    ];
    return `INSERT INTO ${this.#q(this.config.table)} (${columns.map((c) => this.#q(c)).join(', ')}) VALUES (${params.join(', ')})`;
  }

  #rowParams(batchKey: string, entry: JournalEntry): Record<string, SqlValue> {
    const values: Record<JournalColumnField, SqlValue> = {
      batch_key: batchKey,
      line_number: entry.lineNumber,
      side: entry.side,
      account: entry.account,
      counter_account: entry.counterAccount,
      amount: entry.amount,
      debit: entry.side === 'debit' ? entry.amount : ZERO,
      credit: entry.side === 'credit' ? entry.amount : ZERO,
      currency: entry.currency,
      date: entry.date,
      value_date: entry.valueDate,
      period: entry.period,
      reference: entry.reference,
      reference2: entry.reference2,
      branch_code: entry.branchCode,
      movement_type: entry.movementType,
      description: entry.description,
      source_ids: entry.sourceIds.join(','),
    };
    const params: Record<string, SqlValue> = { ...values };
    Object.values(this.config.constants).forEach((value, i) => {
      params[`constant_${i}`] = value;
    });
    return params;
  }

  #q(name: string): string {
    return quoteIdentifier(this.driver.dialect, name);
  }
}

function validateBatch(batch: JournalBatch, connector: string): void {
  const fail = (message: string) =>
    new ConnectorError('connector_input_invalid', `journal batch ${batch.batchKey}: ${message}`, {
      connector,
      retryable: false,
    });
  if (batch.batchKey.trim() === '') throw fail('the batch key is empty');
  if (batch.entries.length === 0) throw fail('the batch has no entries');
  for (const entry of batch.entries) {
    if (!DECIMAL.test(entry.amount))
      throw fail(`line ${entry.lineNumber} has an amount that is not a positive decimal`);
  }
}
