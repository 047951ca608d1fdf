/**
 * JSON Schema (draft 2020-12) of the config file for editors and validators (`supply-sync config schema`).
 *
 * Secret fields carry the annotation keyword `x-secret: true`. A strict validator accepts it once the keyword is
 * declared, as editors and CI checks do with their own vocabulary: with ajv, `ajv.addVocabulary(['x-secret'])`.
 */
import * as z from 'zod';
import { NO_PLUGINS, type PluginSchemas } from './plugin-schemas.js';
import { coreConfigSchema } from './schema.js';

type JsonObject = Record<string, unknown>;

/** The annotation keyword that marks a secret field in the exported schema. */
export const SECRET_KEYWORD = 'x-secret';

function toJson(schema: z.ZodType): JsonObject {
  return z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    // zod keeps a transformed field's description but not its examples when it exports the input side.
    override: ({ zodSchema, jsonSchema }) => {
      const examples = z.globalRegistry.get(zodSchema)?.examples;
      if (Array.isArray(examples) && jsonSchema.examples === undefined) jsonSchema.examples = examples;
    },
  }) as JsonObject;
}

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * Calls `visit` on every subschema of `node`, following the keywords the exporter emits: each schema before its
 * subschemas, or after them with `order` "post".
 */
function eachSchema(node: unknown, visit: (schema: JsonObject) => void, order: 'pre' | 'post' = 'pre'): void {
  if (!isObject(node)) return;
  if (order === 'pre') visit(node);
  for (const key of ['properties', 'patternProperties', '$defs']) {
    const map = node[key];
    if (isObject(map)) for (const child of Object.values(map)) eachSchema(child, visit, order);
  }
  for (const key of ['additionalProperties', 'items', 'propertyNames', 'not', 'if', 'then', 'else']) {
    eachSchema(node[key], visit, order);
  }
  for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems']) {
    const list = node[key];
    if (Array.isArray(list)) for (const child of list) eachSchema(child, visit, order);
  }
  if (order === 'post') visit(node);
}

/** zod's `.meta({ secret: true })` becomes the `x-secret` annotation. */
function markSecrets(root: JsonObject): void {
  eachSchema(root, (schema) => {
    if (schema['secret'] === true) {
      delete schema['secret'];
      schema[SECRET_KEYWORD] = true;
    }
  });
}

function isSecretProperty(property: JsonObject): boolean {
  const items = property['items'];
  return property[SECRET_KEYWORD] === true || (isObject(items) && items[SECRET_KEYWORD] === true);
}

/**
 * Adds `<key>_file` beside every secret property, since the loader accepts either; a required secret becomes
 * "the key or its _file".
 */
function addFileAlternatives(root: JsonObject): void {
  eachSchema(root, (schema) => {
    const properties = schema['properties'];
    if (!isObject(properties)) return;
    for (const [key, property] of Object.entries(properties)) {
      const fileKey = `${key}_file`;
      if (!isObject(property) || !isSecretProperty(property) || fileKey in properties) continue;
      properties[fileKey] = {
        type: 'string',
        minLength: 1,
        description: `Path of a file holding ${key} (read at start, one trailing newline trimmed); instead of ${key}`,
        examples: [`/run/secrets/${key}`],
      };
      const required = schema['required'];
      if (Array.isArray(required) && required.includes(key)) {
        schema['required'] = required.filter((name) => name !== key);
        const either = {
          anyOf: [
            { type: 'object', properties: { [key]: true }, required: [key] },
            { type: 'object', properties: { [fileKey]: true }, required: [fileKey] },
          ],
        };
        const allOf = Array.isArray(schema['allOf']) ? (schema['allOf'] as unknown[]) : [];
        schema['allOf'] = [...allOf, either];
      }
    }
  });
}

/**
 * `type: [a, b]` becomes `anyOf: [{ type: a }, { type: b }]`: the same meaning, and accepted by strict validators
 * that refuse union types unless told otherwise (ajv's strictTypes).
 */
function splitUnionTypes(root: JsonObject): void {
  eachSchema(root, (schema) => {
    const types = schema['type'];
    if (!Array.isArray(types)) return;
    delete schema['type'];
    const anyOf = types.map((type: unknown) => ({ type }));
    if (Array.isArray(schema['anyOf'])) {
      const allOf = Array.isArray(schema['allOf']) ? (schema['allOf'] as unknown[]) : [];
      schema['allOf'] = [...allOf, { anyOf }];
    } else schema['anyOf'] = anyOf;
  });
}

/**
 * An example for every property that names none: its default, its constant or its first allowed value; for an
 * object, one made of its properties' examples (the required ones, or all when none is required).
 */
function addDerivedExamples(root: JsonObject): void {
  // Innermost first, so that an object's example is made of its properties' examples.
  eachSchema(
    root,
    (schema) => {
      const properties = schema['properties'];
      if (!isObject(properties)) return;
      for (const property of Object.values(properties)) {
        if (!isObject(property) || Array.isArray(property['examples'])) continue;
        const example = derivedExample(property);
        if (example !== undefined) property['examples'] = [example];
      }
    },
    'post',
  );
}

function firstExample(schema: JsonObject): unknown {
  const examples = schema['examples'];
  return Array.isArray(examples) && examples.length > 0 ? (examples[0] as unknown) : derivedExample(schema);
}

function derivedExample(schema: JsonObject): unknown {
  if ('default' in schema) return schema['default'];
  if ('const' in schema) return schema['const'];
  const values = schema['enum'];
  if (Array.isArray(values) && values.length > 0) return values[0];
  for (const key of ['anyOf', 'oneOf']) {
    const branches = schema[key];
    if (!Array.isArray(branches)) continue;
    for (const branch of branches) {
      const example = isObject(branch) ? firstExample(branch) : undefined;
      if (example !== undefined) return example;
    }
  }
  const properties = schema['properties'];
  if (!isObject(properties)) return undefined;
  const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
  const names = required.length > 0 ? required : Object.keys(properties);
  const example: JsonObject = {};
  for (const name of names) {
    const property = properties[name];
    const value = isObject(property) ? firstExample(property) : undefined;
    if (value !== undefined) example[name] = value;
  }
  return example;
}

function connectorBlocks(registry: PluginSchemas): JsonObject[] {
  return registry.connectorTypes().map((type) => {
    const registration = registry.connector(type);
    const block = toJson(registration?.configSchema ?? z.object({}));
    delete block['$schema'];
    const blockProperties = isObject(block['properties']) ? block['properties'] : {};
    const required = Array.isArray(block['required']) ? (block['required'] as string[]) : [];
    return {
      ...block,
      ...(registration?.description === undefined ? {} : { description: registration.description }),
      properties: {
        type: { const: type, description: `The connector type: ${type}`, examples: [type] },
        ...blockProperties,
      },
      required: ['type', ...required],
    };
  });
}

/** One `if flow is X then options are X's` rule per registered flow, so an editor checks the right options. */
function flowOptionRules(registry: PluginSchemas): JsonObject[] {
  return registry.flowNames().map((flow) => {
    const registration = registry.flow(flow);
    const options = toJson(registration?.options ?? z.object({}));
    delete options['$schema'];
    const description = registration?.description ?? `Options of the ${flow} flow`;
    return {
      if: {
        type: 'object',
        properties: { flow: { const: flow, description: `Jobs of the ${flow} flow`, examples: [flow] } },
        required: ['flow'],
      },
      then: { type: 'object', properties: { options: { ...options, description } } },
    };
  });
}

export function configJsonSchema(registry: PluginSchemas = NO_PLUGINS): JsonObject {
  const root = toJson(coreConfigSchema);
  const properties = root['properties'] as Record<string, JsonObject>;
  const connectors = properties['connectors'];
  const types = connectorBlocks(registry);
  if (types.length > 0 && connectors) {
    const described = connectors['additionalProperties'];
    const description = isObject(described) ? described['description'] : undefined;
    connectors['additionalProperties'] = {
      ...(description === undefined ? {} : { description }),
      anyOf: types,
    };
  }
  const job = properties['jobs']?.['additionalProperties'];
  const rules = flowOptionRules(registry);
  if (rules.length > 0 && isObject(job)) job['allOf'] = rules;
  markSecrets(root);
  splitUnionTypes(root);
  addFileAlternatives(root);
  addDerivedExamples(root);
  return root;
}
