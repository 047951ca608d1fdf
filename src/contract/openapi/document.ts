/** The whole OpenAPI 3.1 document of the v2 contract, built from the operation tables and the zod schemas. */
import { SCOPES } from '../enums.js';
import { componentSchemas } from './components.js';
import { withPatternExamples } from './examples.js';
import { type OperationSpec, operationObject } from './operation.js';
import { PARAMETERS } from './parameters.js';
import { BUYER_OPERATIONS } from './paths-buyer.js';
import { PLATFORM_OPERATIONS } from './paths-platform.js';
import { SUPPLIER_OPERATIONS } from './paths-supplier.js';
import { HEADERS, componentResponses } from './responses.js';
import type { JsonObject } from './types.js';
import { webhookEntries } from './webhooks.js';

export const CONTRACT_VERSION = '2.0.0-draft.1';

/** Every operation of part 4 plus the gap operations, in the contract's order. */
export const OPERATIONS: readonly OperationSpec[] = [
  ...PLATFORM_OPERATIONS.slice(0, 2),
  ...SUPPLIER_OPERATIONS,
  ...BUYER_OPERATIONS,
  ...PLATFORM_OPERATIONS.slice(2),
];

const TAGS = [
  ['Auth and account', 'Token exchange and the account context (part 4.1, 5).'],
  ['Supplier buyers', 'Linked buyers and invitations (part 4.2).'],
  ['Supplier orders', 'Orders from linked buyers (part 4.3).'],
  ['Supplier documents', 'Delivery notes, invoices, credit notes (part 4.4).'],
  ['Supplier catalog', 'Products, availability, price lists (part 4.5).'],
  ['Buyer reference', 'Reference data (part 4.6).'],
  ['Buyer purchases', 'Purchase orders and documents (part 4.7).'],
  ['Buyer expenses', 'Expenses (part 4.8).'],
  ['Buyer accounting', 'Journal lines and their export (part 4.9).'],
  ['Buyer sales', 'Z-reports and item sales (part 4.10).'],
  ['Buyer inventory', 'Inventory counts (part 4.11).'],
  ['Reports', 'Computed reports (part 4.12).'],
  ['Files', 'Uploads and signed downloads (part 4.13).'],
  ['Exports', 'Asynchronous bulk exports (part 4.14).'],
  ['Audit', 'The request audit log (part 4.15).'],
  ['Webhooks', 'Webhook endpoints and deliveries (part 4.16).'],
  ['Events', 'The event catalog, pushed as webhooks or pulled from the feed (part 4.17, 6).'],
] as const;

function paths(): Record<string, Record<string, JsonObject>> {
  const out: Record<string, Record<string, JsonObject>> = {};
  for (const spec of OPERATIONS) {
    const item = (out[spec.path] ??= {});
    item[spec.method] = operationObject(spec);
  }
  return out;
}

const SECURITY_SCHEMES = {
  ApiKey: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'API key (svc_test_... in the sandbox, svc_live_... in production)',
    description: 'Send the API key as the Bearer token of every request.',
  },
  ClientCredentials: {
    type: 'oauth2',
    description:
      'Exchange the API key (client_secret) at POST /oauth/token for a JWT access token valid for 60 minutes, ' +
      'then send it as the Bearer token.',
    flows: {
      clientCredentials: {
        tokenUrl: 'oauth/token',
        scopes: Object.fromEntries(SCOPES.map((scope) => [scope, `The ${scope} scope.`])),
      },
    },
  },
};

export function buildOpenApiDocument(): JsonObject {
  return withPatternExamples({
    openapi: '3.1.0',
    info: {
      title: 'Purchasing and Supply API',
      version: CONTRACT_VERSION,
      description:
        'The v2 contract as supply-sync implements it. Responses are open to additions (part 9): new fields, ' +
        'new enum values and new event types may appear, and every enum accepts any other string. Where the ' +
        'contract says "not shown", the shape chosen by supply-sync is marked with `x-contract-gap` naming its ' +
        'id in docs/contract-gaps.md.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      {
        url: '{base_url}',
        description: 'Production or sandbox base address; it includes the /v2 prefix.',
        variables: {
          base_url: { default: 'http://127.0.0.1:4010/v2', description: 'The API base address.' },
        },
      },
    ],
    security: [{ ApiKey: [] }, { ClientCredentials: [] }],
    tags: TAGS.map(([name, description]) => ({ name, description })),
    paths: paths(),
    webhooks: webhookEntries(),
    components: {
      schemas: componentSchemas(),
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: componentResponses(),
      securitySchemes: SECURITY_SCHEMES,
    },
  });
}

/** The document as committed in docs/openapi.json: two-space JSON with a final newline. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}
