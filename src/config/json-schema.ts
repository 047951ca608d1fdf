/** JSON Schema of the config file for editors (`supply-sync config schema`). */
import { z } from 'zod';
import { configRegistry, type SchemaRegistry } from './registry.js';
import { coreConfigSchema } from './schema.js';

type JsonObject = Record<string, unknown>;

function toJson(schema: z.ZodType): JsonObject {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
}

/** Adds `<key>_file` beside every secret property, since the loader accepts both. */
function addFileAlternatives(node: unknown): void {
  if (node === null || typeof node !== 'object') return;
  const object = node as JsonObject;
  const properties = object['properties'] as Record<string, JsonObject> | undefined;
  if (properties) {
    for (const [key, property] of Object.entries(properties)) {
      const isSecret =
        property['secret'] === true || (property['items'] as JsonObject | undefined)?.['secret'] === true;
      if (isSecret && !(`${key}_file` in properties)) {
        properties[`${key}_file`] = { type: 'string', description: `Path of a file holding ${key}` };
      }
    }
  }
  for (const child of Object.values(object)) addFileAlternatives(child);
}

export function configJsonSchema(registry: SchemaRegistry = configRegistry): JsonObject {
  const root = toJson(coreConfigSchema);
  const properties = root['properties'] as Record<string, JsonObject>;
  const types = registry.connectorTypes();
  if (types.length > 0 && properties['connectors']) {
    properties['connectors']['additionalProperties'] = {
      anyOf: types.map((type) => {
        const block = toJson(registry.connector(type)?.schema ?? z.object({}));
        delete block['$schema'];
        const blockProperties = (block['properties'] as JsonObject | undefined) ?? {};
        return {
          ...block,
          properties: { type: { const: type }, ...blockProperties },
          required: ['type', ...((block['required'] as string[] | undefined) ?? [])],
        };
      }),
    };
  }
  const flows = registry.flows();
  const job = properties['jobs']?.['additionalProperties'] as
    { properties?: Record<string, JsonObject> } | undefined;
  if (flows.length > 0 && job?.properties) {
    job.properties['options'] = {
      anyOf: flows.map((flow) => {
        const options = toJson(registry.flow(flow)?.options ?? z.object({}));
        delete options['$schema'];
        return { ...options, description: `options of flow ${flow}` };
      }),
    };
  }
  addFileAlternatives(root);
  return root;
}
