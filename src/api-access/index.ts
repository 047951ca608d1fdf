/** The one way to open the API, for the daemon and the CLI alike. */
export {
  openApiEndpoint,
  embeddedSandboxFile,
  ApiEndpointError,
  type ApiEndpoint,
  type ApiSide,
  type EmbeddedSandboxOptions,
} from './endpoint.js';
export { apiNetworkOptions, type ApiNetworkOptions } from './network.js';
export {
  apiClientFor,
  openApi,
  type ApiAccess,
  type ApiClientExtras,
  type OpenApiOptions,
} from './client.js';
