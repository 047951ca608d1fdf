/** Loading and validating the config file into a frozen, fully typed value. */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type * as z from 'zod';
import { apiKeySetting, type ApiKeySetting } from './api-key-setting.js';
import { BlockValidator, rawBlocks } from './blocks.js';
import { ConfigError, formatPath, type ConfigIssue } from './errors.js';
import { deepFreeze, type DeepReadonly } from './freeze.js';
import { NO_PLUGINS, type PluginSchemas } from './plugin-schemas.js';
import { coreConfigSchema, type CoreConfig } from './schema.js';
import { childSchema, isSecretSchema, schemaAtPath, unwrap, type PathSegment } from './schema-walk.js';
import { readConfigSource, type ConfigSource, type SourceOptions } from './source.js';

function isArraySchema(schema: z.ZodType): boolean {
  return unwrap(schema).schema._zod.def.type === 'array';
}

export interface ConnectorConfig {
  readonly type: string;
  readonly [key: string]: unknown;
}

export type Config = DeepReadonly<
  Omit<CoreConfig, 'connectors'> & { connectors: Record<string, ConnectorConfig> }
>;

export interface LoadedConfig {
  readonly file: string;
  readonly config: Config;
  /** Blocks that could not be checked (for example a connector type nobody registered yet). */
  readonly warnings: readonly string[];
  /**
   * The connector types and flows that parsed the connector blocks and job options (NO_PLUGINS when the loader was
   * given none): what builds connectors and jobs from this config checks it parsed them.
   */
  readonly parsedBy: PluginSchemas;
  /** Where the API key is set, to name it when the API refuses the key. */
  readonly apiKey: ApiKeySetting;
  /** The company of an office: its name, the office file, and the office's own state file (its command queue). */
  readonly company?: {
    readonly name: string;
    readonly office: string;
    readonly officeState: string;
    /** The office file sets state.url: several office processes share the companies. */
    readonly shared?: boolean;
  };
}

export interface LoadOptions {
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly readFile?: (path: string) => string;
  /**
   * The connector types and flows of this build; without it only the core config is checked, and building a daemon
   * from the result fails (its connector blocks and job options were not parsed).
   */
  readonly registry?: PluginSchemas;
}

function connectorTypeOf(raw: unknown, name: PathSegment | undefined): string | undefined {
  const connectors = (raw as { connectors?: Record<string, { type?: unknown }> } | null)?.connectors;
  const type = name === undefined ? undefined : connectors?.[String(name)]?.type;
  return typeof type === 'string' ? type : undefined;
}

function flowOf(raw: unknown, name: PathSegment | undefined): string | undefined {
  const jobs = (raw as { jobs?: Record<string, { flow?: unknown }> } | null)?.jobs;
  const flow = name === undefined ? undefined : jobs?.[String(name)]?.flow;
  return typeof flow === 'string' ? flow : undefined;
}

/** The schema governing a path of the file, following the connector type and job flow registry. */
function schemaForPath(
  raw: unknown,
  path: readonly PathSegment[],
  registry: PluginSchemas,
): z.ZodType | undefined {
  if (path[0] === 'connectors' && path.length >= 3) {
    const type = connectorTypeOf(raw, path[1]);
    const registration = type === undefined ? undefined : registry.connector(type);
    return registration ? schemaAtPath(registration.configSchema, path.slice(2)) : undefined;
  }
  if (path[0] === 'jobs' && path[2] === 'options' && path.length >= 3) {
    const flow = flowOf(raw, path[1]);
    const registration = flow === undefined ? undefined : registry.flow(flow);
    return registration ? schemaAtPath(registration.options, path.slice(3)) : undefined;
  }
  return schemaAtPath(coreConfigSchema, path);
}

/** The paths filled from a `<key>_file` whose field is not a secret (nor a list of secrets). */
function nonSecretFileFields(source: ConfigSource, registry: PluginSchemas): (readonly PathSegment[])[] {
  return source.fromFiles.filter((path) => {
    const schema = schemaForPath(source.data, path, registry);
    const element = schema === undefined ? undefined : childSchema(schema, 0);
    return (
      schema !== undefined && !isSecretSchema(schema) && !(isArraySchema(schema) && isSecretSchema(element))
    );
  });
}

/** Relative paths in the config are relative to the config file's folder, wherever the daemon is started from. */
function resolvePaths(file: string, core: CoreConfig): Pick<CoreConfig, 'api' | 'state' | 'server'> {
  const state = { ...core.state, path: resolve(dirname(file), core.state.path) };
  const caFile = core.api.ca_file;
  const api = caFile === undefined ? core.api : { ...core.api, ca_file: resolve(dirname(file), caFile) };
  type TlsFiles = NonNullable<typeof core.server.tls>;
  const tlsPaths = (tls: TlsFiles): TlsFiles => ({
    cert_file: resolve(dirname(file), tls.cert_file),
    key_file: resolve(dirname(file), tls.key_file),
    ...(tls.ca_file === undefined ? {} : { ca_file: resolve(dirname(file), tls.ca_file) }),
  });
  const { tls, webhooks, control } = core.server;
  const tokenFile = control?.local_token_file;
  const server = {
    ...core.server,
    ...(tokenFile === undefined
      ? {}
      : { control: { ...control, local_token_file: resolve(dirname(file), tokenFile) } }),
    ...(tls === undefined ? {} : { tls: tlsPaths(tls) }),
    ...(webhooks?.tls === undefined ? {} : { webhooks: { ...webhooks, tls: tlsPaths(webhooks.tls) } }),
  };
  return { api, state, server };
}

/** How a config document is read: the callbacks follow the schema (and the plugins) the loader was given. */
export function sourceOptions(
  options: LoadOptions,
  context: (raw: unknown) => unknown = (raw) => raw,
): SourceOptions {
  const registry = options.registry ?? NO_PLUGINS;
  return {
    env: options.env ?? process.env,
    readFile: options.readFile ?? ((path) => readFileSync(path, 'utf8')),
    expectsList: (path, raw) => {
      const schema = schemaForPath(context(raw), path, registry);
      return schema !== undefined && isArraySchema(schema);
    },
    isDeclaredKey: (path, raw) => schemaForPath(context(raw), path, registry) !== undefined,
  };
}

export function parseConfig(file: string, text: string, options: LoadOptions = {}): LoadedConfig {
  const source = readConfigSource(file, text, sourceOptions(options));
  if (isOffice(source.data)) throw new ConfigError([officeIssue(file)]);
  return validateSource(source, options);
}

/** Whether a config document describes an office of companies (a `companies:` block) rather than one company. */
export function isOffice(data: unknown): boolean {
  return data !== null && typeof data === 'object' && 'companies' in data;
}

function officeIssue(file: string): ConfigIssue {
  return {
    file,
    path: 'companies',
    message:
      'this file is an office of companies: choose one with --company NAME (`supply-sync config validate` lists them)',
  };
}

/** Validates a read document (one file, or an office's part merged with a company's) into a LoadedConfig. */
export function validateSource(source: ConfigSource, options: LoadOptions = {}): LoadedConfig {
  const { file } = source;
  const registry = options.registry ?? NO_PLUGINS;
  const issues: ConfigIssue[] = [...source.issues];
  const issueAt = (path: readonly PathSegment[], message: string, preferKey = false) =>
    issues.push({ file, ...source.locate(path, preferKey), path: formatPath(path), message });
  if (source.data === undefined) throw new ConfigError(issues);
  // A key reported already (a missing variable, an unreadable <key>_file) is not reported again as missing.
  const reported = new Set(issues.flatMap((issue) => [issue.path, issue.path.replace(/_file$/, '')]));

  for (const path of nonSecretFileFields(source, registry)) {
    issueAt(
      path,
      `${String(path[path.length - 1])}_file is accepted only for secret fields; give the value directly`,
      true,
    );
  }

  const blocks = new BlockValidator(source, registry, issues, reported);
  const core = blocks.validate(coreConfigSchema, source.data, []) as CoreConfig | undefined;
  if (!core) {
    // Check connector blocks and job options anyway, so one run reports as much as it can.
    const raw = rawBlocks(source.data);
    blocks.connectors(raw.connectors);
    for (const [name, job] of Object.entries(raw.jobs)) {
      const registration = registry.flow(job.flow);
      if (registration) blocks.validate(registration.options, job.options, ['jobs', name, 'options']);
    }
    throw new ConfigError(issues);
  }
  const connectors = blocks.connectors(core.connectors);
  const jobs = blocks.jobs(core.jobs, core.connectors, connectors);
  if (issues.length > 0) throw new ConfigError(issues);
  blocks.writeTimeouts(core.ha, connectors);
  blocks.mappingTables(core.jobs, Object.keys(core.mappings ?? {}));
  const { api, state, server } = resolvePaths(file, core);
  const config = deepFreeze({ ...core, api, state, server, connectors, jobs }) as Config;
  return { file, config, warnings: blocks.warnings, parsedBy: registry, apiKey: apiKeySetting(source) };
}

/** A config file's text; a missing or unreadable file is a ConfigError saying what to do. */
export function readConfigText(file: string, options: LoadOptions = {}): string {
  try {
    return (options.readFile ?? ((path: string) => readFileSync(path, 'utf8')))(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? 'unknown error'})`;
    throw new ConfigError([
      { file, path: '', message: `${reason}; pass --config FILE or create it from config/demo.yaml` },
    ]);
  }
}

/** Reads and validates a config file. Throws ConfigError (never with a secret in it) when it cannot be used. */
export function loadConfig(file: string, options: LoadOptions = {}): LoadedConfig {
  return parseConfig(file, readConfigText(file, options), options);
}
