/** `supply-sync contract openapi`: the v2 contract as an OpenAPI 3.1 document (the same as docs/openapi.json). */
import type { Command } from 'commander';
import { renderOpenApiDocument } from '../../contract/openapi/index.js';
import type { CliContext } from '../context.js';

export function registerContractCommands(program: Command, context: CliContext): void {
  const contract = program
    .command('contract')
    .description('machine-readable descriptions of the API contract');
  contract
    .command('openapi')
    .description('print the OpenAPI 3.1 document of the v2 contract (JSON), generated from its schemas')
    .action(() => {
      context.output.line(renderOpenApiDocument().trimEnd());
    });
}
