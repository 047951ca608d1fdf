import { hostname } from 'node:os';
import type { LoadedConfig } from '../config/index.js';
import type { MessageOrigin } from './message.js';

/** notifications.instance, else ha.instance, else the host name; and the config file that was loaded. */
export function messageOrigin(loaded: LoadedConfig): MessageOrigin {
  const { config } = loaded;
  return {
    instance: config.notifications?.instance ?? config.ha?.instance ?? hostname(),
    config: loaded.file,
  };
}
