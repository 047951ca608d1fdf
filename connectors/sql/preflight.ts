import { closestMatch } from '../../src/config/did-you-mean.js';
import type { PreflightProblem } from '../../src/connector-contract/connector.js';
import { ConnectorError } from '../../src/connector-contract/errors.js';
import type { SqlDriver } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from './erp-config.js';
import { configuredStatements, type ConfiguredStatement } from './erp-contracts.js';
import { compileNamedParams } from '../../src/kit/sql/named-params.js';

const PARAMETER_FIX = 'use only the parameters listed for this statement in connectors/sql/README.md';
const COLUMN_FIX = 'alias the column with AS <name> in the SELECT (see connectors/sql/README.md)';

function keyOf(statement: ConfiguredStatement): string {
  return `statements.${statement.contract.key}`;
}

function suggestion(name: string, candidates: readonly string[], prefix = ''): string {
  const close = closestMatch(name, candidates);
  return close === undefined ? '' : `; did you mean ${prefix}${close}?`;
}

/** A returned column that is probably the missing one: a near spelling, or a name that contains it (item_name). */
function columnSuggestion(missing: string, unread: readonly string[]): string {
  const lower = missing.toLowerCase();
  const meant =
    closestMatch(missing, unread) ?? unread.find((column) => column.toLowerCase().includes(lower));
  return meant === undefined ? '' : `; did you mean ${meant}?`;
}

/** Parameters a statement uses that the flow never provides: knowable from the config alone. */
function parameterProblems(statement: ConfiguredStatement): PreflightProblem[] {
  const { names } = compileNamedParams(statement.sql, 'question');
  const provided = statement.contract.params;
  return names
    .filter((name) => !provided.includes(name))
    .map((name) => ({
      status: 'fail',
      capability: statement.capability,
      key: keyOf(statement),
      detail:
        `parameter :${name} is not one supply-sync provides to this statement${suggestion(name, provided, ':')}` +
        ` (provided: ${provided.length === 0 ? 'none' : provided.map((p) => `:${p}`).join(', ')})`,
      fix: PARAMETER_FIX,
    }));
}

/** Compares the columns the database says a statement returns with the ones the connector reads. */
function columnProblems(
  statement: ConfiguredStatement,
  columns: readonly string[] | null,
): PreflightProblem[] {
  const { contract, capability } = statement;
  const key = keyOf(statement);
  if (columns === null) {
    if (contract.resultOptional) return [];
    return [
      {
        status: 'fail',
        capability,
        key,
        detail: `returns no rows; supply-sync reads the columns ${contract.columns.join(', ')} from it`,
        fix: 'make it a SELECT that returns these columns',
      },
    ];
  }
  const known: readonly string[] = [...contract.columns, ...contract.optionalColumns];
  const unread = columns.filter((column) => !known.includes(column));
  const problems: PreflightProblem[] = contract.columns
    .filter((column) => !columns.includes(column))
    .map((column) => ({
      status: 'fail',
      capability,
      key,
      detail: `returns no column "${column}"${columnSuggestion(column, unread)} (returned: ${columns.join(', ') || 'none'})`,
      fix: COLUMN_FIX,
    }));
  if (contract.passesOtherColumns) return problems;
  for (const column of unread) {
    const meant = closestMatch(column, contract.optionalColumns);
    if (meant === undefined || columns.includes(meant)) continue;
    problems.push({
      status: 'warn',
      capability,
      key,
      detail: `returns a column "${column}" that supply-sync does not read; did you mean "${meant}"?`,
      fix: COLUMN_FIX,
    });
  }
  return problems;
}

/** The pre-flight part that needs no database: every `:parameter` must be one the flow provides. */
export function staticStatementProblems(statements: ErpStatements | undefined): PreflightProblem[] {
  return configuredStatements(statements).flatMap(parameterProblems);
}

/**
 * Prepares every configured statement on the real database without running it (SQLite prepare, a PostgreSQL
 * Parse/Describe, SQL Server's sp_describe_* procedures) and checks its parameters and result columns against the
 * contract the runtime code is typed by. A statement the database rejects (unknown table or column, syntax) fails
 * with the database's message. Nothing is executed, so no data changes. An unreachable database throws: that is
 * the connection check's finding, not a problem of any statement.
 */
export async function preflightStatements(
  driver: SqlDriver,
  statements: ErpStatements | undefined,
): Promise<PreflightProblem[]> {
  const problems: PreflightProblem[] = [];
  for (const statement of configuredStatements(statements)) {
    problems.push(...parameterProblems(statement));
    let columns: readonly string[] | null;
    try {
      columns = (await driver.describe(statement.sql)).columns;
    } catch (error) {
      if (error instanceof ConnectorError && error.code === 'connector_unreachable') throw error;
      problems.push({
        status: 'fail',
        capability: statement.capability,
        key: keyOf(statement),
        detail: `the database rejects it: ${error instanceof Error ? error.message : String(error)}`,
        fix: 'correct the statement against your schema (table and column names, syntax of this database)',
      });
      continue;
    }
    problems.push(...columnProblems(statement, columns));
  }
  return problems;
}
