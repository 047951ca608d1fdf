/**
 * The CLI's view of what this build ships. The list itself lives in src/daemon/plugins/builtin-plugins.ts, behind the one
 * composition root; it is imported lazily so `--help` stays fast.
 */
import type { PluginRegistry } from '../plugin/index.js';

export async function buildPluginRegistry(): Promise<PluginRegistry> {
  const { buildPluginRegistry } = await import('../daemon/plugins/builtin.js');
  return buildPluginRegistry();
}
