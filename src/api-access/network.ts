/** The network options of the API client from the config: api.proxy and api.ca_file. */
import type { NetworkOptions } from '../client/network.js';
import type { Config } from '../config/index.js';
import { readCertificateBundle } from '../shared/pem.js';

export type ApiNetworkOptions = Pick<NetworkOptions, 'proxy' | 'extraCaCertificates'>;

export function apiNetworkOptions(config: Config): ApiNetworkOptions {
  const { proxy, ca_file: caFile } = config.api;
  return {
    ...(proxy === undefined
      ? {}
      : {
          proxy: {
            url: proxy.url,
            username: proxy.username,
            password: proxy.password,
            noProxy: proxy.no_proxy,
          },
        }),
    ...(caFile === undefined ? {} : { extraCaCertificates: readCertificateBundle(caFile, 'api.ca_file') }),
  };
}
