import { hostname } from 'node:os';
import type { LoadedConfig } from '../config/index.js';
import type { MessageOrigin } from './message.js';

/**
 * notifications.instance, else ha.instance, else the host name; this process's own name (`node`: the daemon passes
 * the name it elects under, host:pid unless ha.instance is set); and the config file that was loaded.
 */
export function messageOrigin(loaded: LoadedConfig, node?: string): MessageOrigin {
  const { config } = loaded;
  return {
    instance: config.notifications?.instance ?? config.ha?.instance ?? hostname(),
    node: node ?? config.ha?.instance ?? hostname(),
    config: loaded.file,
  };
}
