/** The contract as an OpenAPI 3.1 document (`supply-sync contract openapi`, docs/openapi.json). */
export { buildOpenApiDocument, renderOpenApiDocument, OPERATIONS, CONTRACT_VERSION } from './document.js';
export type { OperationSpec } from './operation.js';
export type { JsonObject } from './types.js';
