/**
 * The composition root of what this build ships (the list is src/daemon/plugins/builtin-plugins.ts). Everything else in
 * the daemon receives the registry built here; nothing registers itself behind the scenes.
 */
import { PluginRegistry, type PluginDefinition } from '../../plugin/index.js';
import * as shipped from './builtin-plugins.js';

/** The connector types and flows of a daemon, and the schemas its config is validated against. */
export type { PluginRegistry };

export function builtinPlugins(): PluginDefinition[] {
  return Object.values(shipped);
}

export function buildPluginRegistry(plugins: Iterable<PluginDefinition> = builtinPlugins()): PluginRegistry {
  return new PluginRegistry(plugins);
}
