/** Reads operations, parameters and schemas out of the OpenAPI document itself (resolving local $refs). */
export type Json = { [key: string]: unknown };

export interface DocOperation {
  method: string;
  path: string;
  operationId: string;
  parameters: DocParameter[];
  /** The JSON request body schema, when the operation takes JSON. */
  jsonBody?: Json;
  bodyRequired: boolean;
  /** Other request media types (multipart/form-data, application/x-www-form-urlencoded). */
  mediaTypes: string[];
}

export interface DocParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

export function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows a local `#/a/b` reference (repeatedly) to the object it names. */
export function resolve(doc: Json, node: unknown): Json {
  let current: unknown = node;
  for (let hops = 0; hops < 20 && isJson(current) && typeof current['$ref'] === 'string'; hops += 1) {
    const parts = current['$ref'].replace(/^#\//, '').split('/');
    current = parts.reduce<unknown>((at, part) => (isJson(at) ? at[part] : undefined), doc);
  }
  if (!isJson(current)) throw new Error(`unresolvable schema node ${JSON.stringify(node)}`);
  return current;
}

export function operationsOf(doc: Json): DocOperation[] {
  const out: DocOperation[] = [];
  const paths = resolve(doc, doc['paths']);
  for (const [path, item] of Object.entries(paths)) {
    if (!isJson(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isJson(op)) continue;
      const parameters = (Array.isArray(op['parameters']) ? op['parameters'] : []).map((raw: unknown) => {
        const p = resolve(doc, raw);
        return {
          name: String(p['name']),
          in: p['in'] as DocParameter['in'],
          required: p['required'] === true,
          schema: resolve(doc, p['schema']),
        };
      });
      const body = isJson(op['requestBody']) ? resolve(doc, op['requestBody']) : undefined;
      const content = body !== undefined && isJson(body['content']) ? body['content'] : {};
      const json = content['application/json'];
      out.push({
        method: method.toUpperCase(),
        path,
        operationId: String(op['operationId']),
        parameters,
        ...(isJson(json) ? { jsonBody: resolve(doc, json['schema']) } : {}),
        bodyRequired: body?.['required'] === true,
        mediaTypes: Object.keys(content).filter((type) => type !== 'application/json'),
      });
    }
  }
  return out;
}

/** Required property names and whether the object refuses others (following allOf/$ref one level). */
export function objectShape(
  doc: Json,
  schema: Json,
): { required: string[]; properties: Json; closed: boolean } {
  const resolved = resolve(doc, schema);
  return {
    required: Array.isArray(resolved['required']) ? resolved['required'].map(String) : [],
    properties: isJson(resolved['properties']) ? resolved['properties'] : {},
    closed: resolved['additionalProperties'] === false,
  };
}
