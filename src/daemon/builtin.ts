/**
 * The composition root of what this build ships: connector types and flows. Everything else in the daemon
 * receives these registries; nothing registers itself behind the scenes.
 */
import { addConnectorDefinitions, SchemaRegistry } from '../config/index.js';
import { ConnectorRegistry, type ConnectorDefinition } from '../connectors/index.js';
import { csvAccountingConnectorDefinition } from '../../connectors/csv-accounting/index.js';
import { csvErpConnectorDefinition } from '../../connectors/csv-erp/index.js';
import { csvSalesConnectorDefinition } from '../../connectors/csv-sales/index.js';
import { demoErpConnectorDefinition } from '../../connectors/demo-erp/index.js';
import { hashavshevetConnectorDefinition } from '../../connectors/hashavshevet/index.js';
import { sqlConnectorDefinition } from '../../connectors/sql/index.js';
import { buyersFlow } from '../flows/buyers/index.js';
import { catalogFlow } from '../flows/catalog/index.js';
import { documentsFlow } from '../flows/documents/index.js';
import { journalExportFlow } from '../flows/journal-export/index.js';
import { mirrorFlow } from '../flows/mirror/index.js';
import { orderConfirmFlow } from '../flows/order-confirm/index.js';
import { ordersFlow } from '../flows/orders/index.js';
import { salesPushFlow } from '../flows/sales-push/index.js';
import type { FlowDefinition } from './flow-definition.js';

export function builtinConnectorDefinitions(): ConnectorDefinition[] {
  // Each definition is typed by its own config schema; the registry treats them alike.
  return [
    sqlConnectorDefinition,
    demoErpConnectorDefinition,
    csvErpConnectorDefinition,
    csvSalesConnectorDefinition,
    hashavshevetConnectorDefinition,
    csvAccountingConnectorDefinition,
  ] as unknown as ConnectorDefinition[];
}

export function builtinFlows(): FlowDefinition[] {
  return [
    ordersFlow,
    orderConfirmFlow,
    documentsFlow,
    catalogFlow,
    buyersFlow,
    journalExportFlow,
    mirrorFlow,
    salesPushFlow,
  ] as unknown as FlowDefinition[];
}

export interface Registries {
  config: SchemaRegistry;
  connectors: ConnectorRegistry;
  flows: ReadonlyMap<string, FlowDefinition>;
}

export function buildRegistries(
  connectorDefinitions: readonly ConnectorDefinition[] = builtinConnectorDefinitions(),
  flowDefinitions: readonly FlowDefinition[] = builtinFlows(),
): Registries {
  const config = new SchemaRegistry();
  addConnectorDefinitions(config, connectorDefinitions);
  const connectors = new ConnectorRegistry();
  for (const definition of connectorDefinitions) connectors.register(definition);
  const flows = new Map<string, FlowDefinition>();
  for (const flow of flowDefinitions) {
    flows.set(flow.flow, flow);
    config.registerFlow({
      flow: flow.flow,
      options: flow.options,
      description: flow.description,
      scopes: flow.scopes,
      side: flow.side,
    });
  }
  return { config, connectors, flows };
}
