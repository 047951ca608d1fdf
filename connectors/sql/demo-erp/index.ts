import path from 'node:path';
import * as z from 'zod';
import { SqlConnector, sqlCapabilities, sqlCapabilityNames } from '../connector.js';
import { commitGated } from '../../../src/kit/sql/commit-gated.js';
import { defineConnector } from '../../../src/plugin/index.js';
import { openDemoErp } from './demo-erp.js';
import { demoErpJournal, demoErpStatements } from './statements.js';

export { openDemoErp, DEMO_ERP_FILE, DEMO_ERP_ATTACHMENTS, type DemoErp } from './demo-erp.js';
export { simulateErpActivity, type SimulateOptions, type SimulationResult } from './simulate.js';
export { demoErpJournal, demoErpStatements } from './statements.js';
export { DEMO_PRICE_LIST, demoParts, demoSku, type DemoPart } from './seed.js';

export const demoErpConfigSchema = z.strictObject({
  data_dir: z
    .string()
    .min(1)
    .meta({
      description:
        'Folder holding the demo ERP database and its PDF attachments; relative to the config file',
    })
    .default('state/demo-erp'),
  journal: z
    .boolean()
    .meta({ description: 'Also act as the accounting target (journal into the GLJOURNAL table)' })
    .default(true),
});

export const demoErpConnectorDefinition = defineConnector({
  type: 'demo-erp',
  description: 'The bundled demo ERP (SQLite), seeded to match the sandbox demo supplier',
  configSchema: demoErpConfigSchema,
  capabilities: [
    'accountingWriter',
    'orderSink',
    'documentSource',
    'documentReactionSink',
    'confirmationSource',
    'catalogSource',
    'customerDirectory',
  ],
  capabilitiesFor: (config) => sqlCapabilityNames(demoErpSettings(config.journal)),
  async create(config, context) {
    const erp = await openDemoErp(path.resolve(context.baseDir, config.data_dir));
    const driver = commitGated(erp.driver, context.mayCommit);
    const capabilities = sqlCapabilities(driver, demoErpSettings(config.journal), context.name);
    return new SqlConnector('demo-erp', erp.driver, capabilities, `demo ERP ${erp.file}`, undefined);
  },
});

/** The sql connector settings the demo ERP runs with: its statements, and its journal table when asked. */
function demoErpSettings(journal: boolean) {
  return { statements: demoErpStatements, journal: journal ? demoErpJournal : undefined };
}
