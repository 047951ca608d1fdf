import * as z from 'zod';
import { describeConnection, openSqlDriver, sqlConnectionSchema } from '../../src/kit/sql/connection.js';
import { commitGated } from '../../src/kit/sql/commit-gated.js';
import { SqlConnector, sqlCapabilities, sqlCapabilityNames } from './connector.js';
import { erpStatementsSchema } from './erp-config.js';
import { journalTableSchema } from './journal-config.js';
import { staticStatementProblems } from './preflight.js';
import { defineConnector } from '../../src/plugin/index.js';

export const sqlConnectorConfigSchema = z.strictObject({
  connection: sqlConnectionSchema.meta({
    description: 'The database: a SQLite file, PostgreSQL or SQL Server',
    examples: [{ driver: 'sqlite', file: 'data/erp.db' }],
  }),
  journal: journalTableSchema
    .meta({ description: 'Accounting target: journal entries into a table of this database' })
    .optional(),
  statements: erpStatementsSchema
    .meta({
      description: 'ERP side: the statements the supplier flows run; a section left out is not offered',
    })
    .optional(),
  mirror: z
    .strictObject({
      table_prefix: z
        .string()
        .regex(/^[A-Za-z0-9_.]*$/)
        .meta({ description: 'Tables are named <table_prefix><resource>, e.g. mirror_orders' })
        .default('mirror_'),
    })
    .meta({ description: 'Buyer mirror: API resources kept as tables of this database', examples: [{}] })
    .optional(),
});

export type SqlConnectorConfig = z.output<typeof sqlConnectorConfigSchema>;

export const sqlConnectorDefinition = defineConnector({
  type: 'sql',
  description: 'Any SQL Server, PostgreSQL or SQLite database, through statements and mappings in the config',
  configSchema: sqlConnectorConfigSchema,
  capabilities: [
    'accountingWriter',
    'orderSink',
    'documentSource',
    'documentReactionSink',
    'confirmationSource',
    'catalogSource',
    'customerDirectory',
    'salesSource',
    'mirrorSink',
  ],
  capabilitiesFor: (config) => sqlCapabilityNames(config),
  create(config, context) {
    const driver = openSqlDriver(config.connection, context.baseDir, context.name);
    // Every write transaction asks the daemon's commit gate right before COMMIT.
    const capabilities = sqlCapabilities(
      commitGated(driver, context.mayCommit),
      config,
      context.name,
      context.configFile,
    );
    return Promise.resolve(
      new SqlConnector(
        'sql',
        driver,
        capabilities,
        describeConnection(config.connection),
        config.journal,
        config.statements,
      ),
    );
  },
  staticPreflight: (config) => staticStatementProblems(config.statements),
});
