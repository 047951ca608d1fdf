/**
 * A driver whose transactions ask a commit gate right before COMMIT: when the gate refuses, the transaction rolls
 * back and the gate's error is what the caller sees. The gate runs inside the transaction, after its last
 * statement, so nothing of the transaction is committed unless the gate allowed it at the very end.
 */
import type { CommitGate } from '../../connector-contract/index.js';
import type { SqlDriver, SqlExecutor, SqlParams, SqlResult, StatementShape } from './driver.js';

export function commitGated(driver: SqlDriver, gate: CommitGate | undefined): SqlDriver {
  return gate === undefined ? driver : new CommitGatedDriver(driver, gate);
}

class CommitGatedDriver implements SqlDriver {
  constructor(
    private readonly driver: SqlDriver,
    private readonly gate: CommitGate,
  ) {}

  get dialect(): SqlDriver['dialect'] {
    return this.driver.dialect;
  }

  query(sql: string, params?: SqlParams): Promise<SqlResult> {
    return this.driver.query(sql, params);
  }

  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> {
    return this.driver.transaction(async (tx) => {
      const result = await work(tx);
      await this.gate();
      return result;
    });
  }

  describe(sql: string): Promise<StatementShape> {
    return this.driver.describe(sql);
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}
