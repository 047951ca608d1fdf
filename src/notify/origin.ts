import { hostname } from 'node:os';
import { apiKeySettingName, type LoadedConfig } from '../config/index.js';
import type { MessageOrigin } from './message.js';

/**
 * notifications.instance, else ha.instance, else the host name, with `/<company>` for a company of an office (whose
 * recipients may get the messages of several companies); this process's own name (`node`: the daemon passes the
 * name it elects under, host:pid unless ha.instance is set); and the config file that was loaded.
 */
export function messageOrigin(loaded: LoadedConfig, node?: string): MessageOrigin {
  const { config } = loaded;
  const instance = config.notifications?.instance ?? config.ha?.instance ?? hostname();
  return {
    instance: loaded.company === undefined ? instance : `${instance}/${loaded.company.name}`,
    node: node ?? config.ha?.instance ?? hostname(),
    config: loaded.file,
    apiKeySetting: apiKeySettingName(loaded),
  };
}
