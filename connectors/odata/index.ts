/**
 * The odata connector: an ERP written through its OData API instead of its tables (SAP Business One Service Layer,
 * Priority REST), with presets from the vendors' references. README.md documents the mapping and cites each name;
 * test/support/odata-emulator/ serves each preset's entity sets for tests and for trying doctor (not shipped).
 */
export { odataConnectorDefinition, odataConfigSchema } from './odata-connector.js';
export { OdataConnector, odataCapabilityNames } from './connector.js';
export { OdataHttp } from './http.js';
export { OdataService } from './service.js';
export { OdataOrderSink } from './orders.js';
export { OdataCatalogSource, OdataCustomerDirectory, OdataDocumentSource } from './reads.js';
export { resolveEntities, loadPreset } from './presets.js';
export {
  entitiesSchema,
  odataConnectorConfigSchema,
  type OdataConnectorConfig,
  type OdataEntities,
} from './config.js';
