import { ConnectorError } from '../../src/connector-contract/errors.js';
import { defineConnector } from '../../src/plugin/index.js';
import { odataConnectorConfigSchema, type OdataConnectorConfig } from './config.js';
import { OdataConnector, odataCapabilityNames } from './connector.js';
import { OdataHttp } from './http.js';
import { EntitiesConfigError, resolveEntities, type ResolvedEntities } from './presets.js';

const resolve = (config: OdataConnectorConfig, name: string): ResolvedEntities =>
  resolveEntities(config.preset, config.entities, `connectors.${name}`);

/** The block, with its preset and overrides resolved and checked when the config is loaded. */
export const odataConfigSchema = odataConnectorConfigSchema.superRefine((block, context) => {
  try {
    resolveEntities(block.preset, block.entities, '');
  } catch (error) {
    if (!(error instanceof EntitiesConfigError)) throw error;
    const from = error.origin === undefined ? '' : ` (from ${error.origin})`;
    context.addIssue({
      code: 'custom',
      path: ['entities', ...error.path.split('.')],
      message: `${error.reason}${from}`,
    });
  }
});

export const odataConnectorDefinition = defineConnector({
  type: 'odata',
  description:
    'An ERP written through its OData API (SAP Business One Service Layer, Priority REST), by preset or mapping',
  configSchema: odataConfigSchema,
  capabilities: ['orderSink', 'documentSource', 'catalogSource', 'customerDirectory'],
  // Writes to an ERP API cannot be rolled back: under ha each is cut at the lease's allowance (see OdataHttp).
  writeRequestTimeout: (config) => ({ key: 'timeout', ms: config.timeout }),
  capabilitiesFor(config) {
    try {
      return odataCapabilityNames(resolve(config, 'odata').entities);
    } catch {
      return [];
    }
  },
  create(config, context) {
    let resolved: ResolvedEntities;
    try {
      resolved = resolve(config, context.name);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new ConnectorError('connector_config_invalid', message, {
        connector: context.name,
        retryable: false,
      });
    }
    const http = new OdataHttp(
      config.service_url,
      config.auth,
      config.timeout,
      context.name,
      config.app_license,
    );
    return Promise.resolve(
      new OdataConnector(
        http,
        resolved.entities,
        resolved.origins,
        `connectors.${context.name}`,
        context.name,
        context.mayCommit,
        {
          timeZone: config.company_timezone,
          documentsFrom: config.documents_from,
          currencies: config.currencies,
        },
      ),
    );
  },
});
