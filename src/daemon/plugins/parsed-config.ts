/**
 * Connector blocks and job options are parsed once, when the config is loaded, and handed to the plugins as they
 * are. That holds only if the loader parsed them with the plugins that build the daemon: checked here, before
 * anything is built from them.
 */
import type { LoadedConfig } from '../../config/index.js';
import type { PluginRegistry } from './builtin.js';

/** The config cannot be built into connectors and jobs as loaded; the message names the file and key. */
export class ConfigNotBuildableError extends Error {
  override readonly name = 'ConfigNotBuildableError';
  readonly code = 'config_invalid';
}

/** Throws when a connector block or job option that `registry` will build was not parsed by the same plugin. */
export function requireParsedBy(loaded: LoadedConfig, registry: PluginRegistry): void {
  const { file, config, parsedBy } = loaded;
  const notParsed = (key: string, plugin: string): ConfigNotBuildableError =>
    new ConfigNotBuildableError(
      `${file}: ${key}: not checked against the ${plugin} when the config was loaded; ` +
        'load the config with the plugin registry the daemon runs with',
    );
  for (const [name, block] of Object.entries(config.connectors)) {
    const definition = registry.connector(block.type);
    if (definition !== undefined && parsedBy.connector(block.type) !== definition) {
      throw notParsed(`connectors.${name}`, `schema of connector type "${block.type}"`);
    }
  }
  for (const [name, job] of Object.entries(config.jobs)) {
    const flow = registry.flow(job.flow);
    if (job.enabled && flow !== undefined && parsedBy.flow(job.flow) !== flow) {
      throw notParsed(`jobs.${name}.options`, `options schema of flow "${job.flow}"`);
    }
  }
}
