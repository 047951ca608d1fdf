import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlDriver } from '../../src/kit/sql/driver.js';
import type { ErpStatements } from '../../connectors/sql/erp-config.js';
import { preflightStatements } from '../../connectors/sql/preflight.js';
import type { PreflightProblem } from '../../src/connector-contract/connector.js';
import { createFixtureSchema, fixtureStatements } from './sql-fixture.js';
import type { SqlSuiteTarget } from './shared-sql-suite.js';

/** The fixture statements with one statement replaced. */
function withStatement<S extends keyof ErpStatements>(
  section: S,
  changes: Partial<NonNullable<ErpStatements[S]>>,
): ErpStatements {
  return { ...fixtureStatements, [section]: { ...fixtureStatements[section], ...changes } };
}

function failures(problems: readonly PreflightProblem[]): PreflightProblem[] {
  return problems.filter((problem) => problem.status === 'fail');
}

/**
 * Pre-flight against a real database: statements are prepared (never run) and checked against the contracts the
 * connector's code is typed by. Runs on SQLite, on the PostgreSQL at PG_URL and, when MSSQL_URL is set, SQL Server.
 */
export function sharedPreflightSuite(
  title: string,
  target: SqlSuiteTarget | undefined,
  skipReason: string,
): void {
  describe.skipIf(target === undefined)(
    target === undefined ? `${title} (skipped: ${skipReason})` : title,
    () => {
      let driver: SqlDriver;

      beforeAll(async () => {
        if (target === undefined) return;
        driver = await target.open();
        await createFixtureSchema(driver);
      });
      afterAll(async () => {
        await driver?.close();
        await target?.dispose();
      });

      it('finds nothing wrong with statements that match the schema and the contracts', async () => {
        expect(await preflightStatements(driver, fixtureStatements)).toEqual([]);
      });

      it('names a parameter the flow never provides, with the one it probably meant', async () => {
        const statements = withStatement('orders', {
          insert_line: `INSERT INTO t_order_line (erp_order_number, line_no, item_code, quantity, unit_price)
            VALUES (:erp_order_number, :line_number, :item_code, :quantity, :unit_pricee)`,
        });
        const found = failures(await preflightStatements(driver, statements));
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ capability: 'orderSink', key: 'statements.orders.insert_line' });
        expect(found[0]?.detail).toMatch(
          /^parameter :unit_pricee is not one supply-sync provides to this statement; did you mean :unit_price\?/,
        );
      });

      it('names a column the connector reads that the SELECT does not return, with the near miss', async () => {
        const statements = withStatement('catalog', {
          products: `SELECT sku, name AS nme, unit FROM t_items`,
        });
        const found = failures(await preflightStatements(driver, statements));
        expect(found).toHaveLength(1);
        expect(found[0]).toMatchObject({ capability: 'catalogSource', key: 'statements.catalog.products' });
        expect(found[0]?.detail).toBe(
          'returns no column "name"; did you mean nme? (returned: sku, nme, unit)',
        );
      });

      it('warns of a misspelled optional column, which would otherwise be silently ignored', async () => {
        const statements = withStatement('catalog', {
          availability: `SELECT sku, in_stock AS avilable FROM t_items`,
        });
        const problems = await preflightStatements(driver, statements);
        expect(problems).toEqual([
          expect.objectContaining({
            status: 'warn',
            key: 'statements.catalog.availability',
            detail: 'returns a column "avilable" that supply-sync does not read; did you mean "available"?',
          }),
        ]);
      });

      it('reports what the database rejects, such as a column the table does not have', async () => {
        const statements = withStatement('documents', {
          lines: `SELECT line_no AS line_number, item_code, description, quantity, unit_prise AS unit_price, total
            FROM t_doc_lines WHERE ref = :ref`,
        });
        const found = failures(await preflightStatements(driver, statements));
        expect(found).toHaveLength(1);
        expect(found[0]?.key).toBe('statements.documents.lines');
        expect(found[0]?.detail).toMatch(/^the database rejects it: .*unit_prise/);
      });

      it('fails a statement the connector reads rows from when it returns none', async () => {
        const statements = withStatement('sales', {
          pending: `UPDATE t_pos_days SET state = 'closed' WHERE state = 'closed'`,
        });
        const found = failures(await preflightStatements(driver, statements));
        expect(found.map((problem) => [problem.key, problem.detail])).toEqual([
          ['statements.sales.pending', 'returns no rows; supply-sync reads the columns ref from it'],
        ]);
      });

      it('checks the columns an insert returns, when it returns any', async () => {
        const statements = withStatement('orders', {
          insert_header:
            driver.dialect === 'mssql'
              ? `INSERT INTO t_order_header (seq, erp_order_number, api_order_id, customer_number)
                  OUTPUT inserted.erp_order_number AS erp_order_no
                  VALUES (1, 'E1', :api_order_id, :customer_number)`
              : `INSERT INTO t_order_header (seq, erp_order_number, api_order_id, customer_number)
                  VALUES (1, 'E1', :api_order_id, :customer_number) RETURNING erp_order_number AS erp_order_no`,
        });
        const found = failures(await preflightStatements(driver, statements));
        expect(found.map((problem) => problem.detail)).toEqual([
          'returns no column "erp_order_number"; did you mean erp_order_no? (returned: erp_order_no)',
        ]);
      });

      it('changes no data: writes are prepared, never run', async () => {
        const count = async (table: string) =>
          Number((await driver.query(`SELECT COUNT(*) AS n FROM ${table}`)).rows[0]?.['n']);
        await driver.query(`INSERT INTO t_pos_days (day_ref, state) VALUES ('D1', 'closed')`);
        const before = [
          await count('t_order_header'),
          await count('t_order_line'),
          await count('t_pos_days'),
        ];
        expect(await preflightStatements(driver, fixtureStatements)).toEqual([]);
        expect([
          await count('t_order_header'),
          await count('t_order_line'),
          await count('t_pos_days'),
        ]).toEqual(before);
        const { rows } = await driver.query(`SELECT state FROM t_pos_days WHERE day_ref = 'D1'`);
        expect(rows[0]?.['state']).toBe('closed');
      });
    },
  );
}
