/** `supply-sync contract openapi`: the v2 contract as an OpenAPI 3.1 document (the same as docs/openapi.json). */
import { renderOpenApiDocument } from '../../contract/openapi/index.js';
import type { CommandSpec, Invocation } from '../command-spec.js';

function printOpenApi({ context }: Invocation): Promise<void> {
  context.output.line(renderOpenApiDocument().trimEnd());
  return Promise.resolve();
}

export const CONTRACT_COMMANDS: CommandSpec = {
  name: 'contract',
  description: 'machine-readable descriptions of the API contract',
  subcommands: [
    {
      name: 'openapi',
      description: 'print the OpenAPI 3.1 document of the v2 contract (JSON), generated from its schemas',
      run: printOpenApi,
    },
  ],
};
