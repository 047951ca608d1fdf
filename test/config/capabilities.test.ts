/**
 * Config validation checks each job's connector against the capabilities the job's flow requires, with the set the
 * connector's own block enables (an sql connector offers orderSink only with statements.orders).
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { buildPluginRegistry } from '../../src/daemon/plugins/builtin.js';
import { SqliteDriver } from '../../src/kit/sql/sqlite-driver.js';
import { sqlCapabilities, sqlCapabilityNames } from '../../connectors/sql/connector.js';
import { erpStatementsSchema } from '../../connectors/sql/erp-config.js';
import { demoErpJournal, demoErpStatements } from '../../connectors/sql/demo-erp/index.js';

const registry = buildPluginRegistry();
const FILE = '/etc/supply-sync/supply-sync.yaml';

function load(lines: string[]) {
  return parseConfig(FILE, ['api:', '  sandbox: embedded', ...lines, ''].join('\n'), { env: {}, registry });
}

function configError(lines: string[]): ConfigError {
  try {
    load(lines);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const SQL_WITHOUT_STATEMENTS = [
  'connectors:',
  '  books:',
  '    type: sql',
  '    connection: { driver: sqlite, file: books.db }',
  '    journal: { table: gl, columns: { account: acc } }',
];

describe("a job's connector against its flow's required capabilities", () => {
  it('names the file, line, job key, connector, its type, the flow and the missing capability', () => {
    const error = configError([
      ...SQL_WITHOUT_STATEMENTS,
      'jobs:',
      '  orders:',
      '    flow: orders',
      '    connector: books',
    ]);
    expect(error.issues).toHaveLength(1);
    expect(error.message).toBe(
      `${FILE}:11:16 jobs.orders.connector: connector "books" (type sql) does not offer orderSink, which the orders flow requires; ` +
        'it offers accountingWriter as configured. Configure connectors.books to offer it or name a connector that does',
    );
  });

  it('accepts the same connector type once its block configures the capability', () => {
    const { config } = load([
      ...SQL_WITHOUT_STATEMENTS,
      '    statements:',
      '      orders:',
      "        find: 'SELECT no AS erp_order_number FROM orders WHERE api_id = :api_order_id'",
      "        insert_header: 'INSERT INTO orders (api_id) VALUES (:api_order_id)'",
      "        insert_line: 'INSERT INTO order_lines (no, item) VALUES (:erp_order_number, :item_code)'",
      'jobs:',
      '  orders: { flow: orders, connector: books }',
      '  journal: { flow: journal-export, connector: books }',
    ]);
    expect(Object.keys(config.jobs)).toEqual(['orders', 'journal']);
  });

  it('follows a setting that switches a capability off (the demo ERP without its journal)', () => {
    const lines = (journal: boolean) => [
      'connectors:',
      `  erp: { type: demo-erp, journal: ${String(journal)} }`,
      'jobs:',
      '  journal: { flow: journal-export, connector: erp }',
    ];
    expect(() => load(lines(true))).not.toThrow();
    expect(configError(lines(false)).message).toContain(
      'jobs.journal.connector: connector "erp" (type demo-erp) does not offer accountingWriter, which the journal-export flow requires',
    );
  });

  it('asks for a connector when a job of a flow that requires one names none', () => {
    const error = configError([...SQL_WITHOUT_STATEMENTS, 'jobs:', '  journal:', '    flow: journal-export']);
    expect(error.message).toContain(
      'jobs.journal.connector: the journal-export flow needs a connector offering accountingWriter; name one of the connectors: entries (defined: books)',
    );
  });

  it('lists every missing capability of a connector that offers none of them', () => {
    const error = configError([
      'connectors:',
      '  files: { type: hashavshevet, import_dir: imports }',
      'jobs:',
      '  mirror: { flow: mirror, connector: files }',
      '  sales: { flow: sales-push, connector: files }',
    ]);
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'jobs.mirror.connector',
      'jobs.sales.connector',
    ]);
    expect(error.message).toContain(
      'connector "files" (type hashavshevet) does not offer mirrorSink, which the mirror flow',
    );
    expect(error.message).toContain('does not offer salesSource, which the sales-push flow requires');
  });
});

describe('the capabilities an sql block enables', () => {
  it('are named from the config exactly as the open connector builds them', async () => {
    const driver = new SqliteDriver(':memory:');
    try {
      const configs = [
        {},
        { journal: demoErpJournal },
        { statements: demoErpStatements },
        {
          statements: erpStatementsSchema.parse({
            sales: {
              pending: 'SELECT day AS ref FROM days',
              z_reports: 'SELECT branch AS branch_code FROM days WHERE day = :ref',
              item_sales: 'SELECT branch AS branch_code FROM lines WHERE day = :ref',
              mark: 'UPDATE days SET pushed = :outcome WHERE day = :ref',
            },
          }),
          mirror: { table_prefix: 'm_' },
        },
      ];
      for (const config of configs) {
        expect(sqlCapabilityNames(config).sort()).toEqual(
          Object.keys(sqlCapabilities(driver, config, 'erp')).sort(),
        );
      }
      expect(sqlCapabilityNames({ statements: demoErpStatements })).toContain('orderSink');
    } finally {
      await driver.close();
    }
  });
});
