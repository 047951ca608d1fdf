/** Secret handling for logs and dumps, derived from the `secret()` marks in the schemas. */
import { NO_PLUGINS, type PluginSchemas } from './plugin-schemas.js';
import { coreConfigSchema } from './schema.js';
import { REDACTED } from './secret.js';
import { secretPathsOf } from './schema-walk.js';

/** Key names treated as secret inside blocks no schema describes (an unregistered connector type). */
const SECRET_LIKE_KEY = /pass(word)?|secret|token|api_?key|credential|private/i;

/** Secret paths of the whole config, with `*` for any connector, job, record key or list index. */
export function configSecretPaths(registry: PluginSchemas = NO_PLUGINS): string[][] {
  const paths = secretPathsOf(coreConfigSchema);
  for (const type of registry.connectorTypes()) {
    const registration = registry.connector(type);
    if (registration) paths.push(...secretPathsOf(registration.configSchema, ['connectors', '*']));
  }
  for (const flow of registry.flowNames()) {
    const registration = registry.flow(flow);
    if (registration) paths.push(...secretPathsOf(registration.options, ['jobs', '*', 'options']));
  }
  // Blocks of connector types nobody registered yet still get the usual secret names redacted.
  for (const key of ['password', 'api_key', 'token', 'secret', 'connection_string'])
    paths.push(['connectors', '*', key]);
  const unique = new Map(paths.map((path) => [path.join('.'), path]));
  return [...unique.values()];
}

/**
 * Paths for pino's `redact` option. `prefix` is where the config sits in the logged object (e.g. `config`);
 * secrets logged elsewhere must be redacted by their own paths.
 */
export function redactionPaths(options: { prefix?: string; registry?: PluginSchemas } = {}): string[] {
  const prefix = options.prefix ? `${options.prefix}.` : '';
  return configSecretPaths(options.registry).map((path) => prefix + path.join('.'));
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  return (
    pattern.length === path.length && pattern.every((segment, i) => segment === '*' || segment === path[i])
  );
}

/** A copy of the config with every secret replaced by "[redacted]", for `config validate --print` and status. */
export function redactConfig(config: unknown, registry: PluginSchemas = NO_PLUGINS): unknown {
  const patterns = configSecretPaths(registry);
  const walk = (value: unknown, path: string[], unchecked: boolean): unknown => {
    if (patterns.some((pattern) => matches(pattern, path))) return REDACTED;
    if (unchecked && SECRET_LIKE_KEY.test(path[path.length - 1] ?? '') && typeof value === 'string')
      return REDACTED;
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, String(i)], unchecked));
    if (value === null || typeof value !== 'object') return value;
    const type = (value as { type?: unknown }).type;
    const unregisteredConnector =
      path.length === 2 && path[0] === 'connectors' && typeof type === 'string' && !registry.connector(type);
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] = walk(child, [...path, key], unchecked || unregisteredConnector);
    }
    return out;
  };
  return walk(config, [], false);
}

/** Every secret string in a loaded config, so output paths can scrub them as a last line of defence. */
export function secretValues(config: unknown, registry: PluginSchemas = NO_PLUGINS): string[] {
  const values: string[] = [];
  const redacted = redactConfig(config, registry);
  const collect = (original: unknown, masked: unknown): void => {
    if (masked === REDACTED && typeof original === 'string' && original !== REDACTED) values.push(original);
    else if (
      original !== null &&
      typeof original === 'object' &&
      masked !== null &&
      typeof masked === 'object'
    ) {
      for (const [key, child] of Object.entries(original))
        collect(child, (masked as Record<string, unknown>)[key]);
    }
  };
  collect(config, redacted);
  return values;
}
