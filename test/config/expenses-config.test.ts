/**
 * Config errors of the expenses setup name the file, the line, the key and what was expected: the flow's options, the
 * csv-expenses block, the sql connector's expenses statements, and a connector that offers no expenseSource.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { buildPluginRegistry } from '../../src/daemon/plugins/builtin.js';

const registry = buildPluginRegistry();
const FILE = '/etc/supply-sync/supply-sync.yaml';

function load(lines: string[]) {
  return parseConfig(FILE, ['api:', '  sandbox: embedded', ...lines, ''].join('\n'), { env: {}, registry });
}

function configError(lines: string[]): string {
  try {
    load(lines);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const FOLDER = ['connectors:', '  receipts:', '    type: csv-expenses', '    in_dir: /srv/expenses'];
const JOB = ['jobs:', '  expenses:', '    flow: expenses', '    connector: receipts'];

describe('expenses config', () => {
  it('accepts a csv-expenses folder with an expenses job and fills the defaults', () => {
    const { config } = load([...FOLDER, ...JOB]);
    expect(config.jobs['expenses']?.options).toMatchObject({
      vendor_mapping: 'vendors',
      category_mapping: 'expense_categories',
      mark_sent: true,
    });
  });

  it('names the option key and the expected form of a mapping table name', () => {
    expect(configError([...FOLDER, ...JOB, '    options:', '      vendor_mapping: Vendor Codes'])).toMatch(
      /^\/etc\/supply-sync\/supply-sync\.yaml:\d+:\d+ jobs\.expenses\.options\.vendor_mapping: .*a mapping table name: lowercase letters, digits and underscores/,
    );
  });

  it('names the connector key and the allowed separators', () => {
    expect(configError([...FOLDER, "    separator: 'x'", ...JOB])).toMatch(
      /supply-sync\.yaml:\d+:\d+ connectors\.receipts\.separator: .*","/,
    );
  });

  it('names a misspelt statement of the sql connector', () => {
    const message = configError([
      'connectors:',
      '  office:',
      '    type: sql',
      '    connection: { driver: sqlite, file: office.db }',
      '    statements:',
      '      expenses:',
      "        pending: 'SELECT 1'",
      "        line: 'SELECT 1'",
      "        mark_sent: 'SELECT 1'",
    ]);
    expect(message).toMatch(/connectors\.office\.statements\.expenses/);
    expect(message).toMatch(/line/);
  });

  it('refuses a job whose connector offers no expenseSource, naming both', () => {
    expect(
      configError([
        'connectors:',
        '  office:',
        '    type: sql',
        '    connection: { driver: sqlite, file: office.db }',
        '    journal: { table: gl, columns: { account: acc } }',
        'jobs:',
        '  expenses:',
        '    flow: expenses',
        '    connector: office',
      ]),
    ).toMatch(
      /jobs\.expenses\.connector: connector "office" \(type sql\) does not offer expenseSource, which the expenses flow requires/,
    );
  });
});
