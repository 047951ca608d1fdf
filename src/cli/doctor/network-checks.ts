/** Doctor lines for the way to the API: which proxy carries the calls and whether its TLS certificate is trusted. */
import {
  proxyRouteFor,
  resolveProxySettings,
  type NetworkOptions,
  type ProxySettings,
} from '../../client/network.js';
import type { Config } from '../../config/index.js';
import { apiNetworkOptions } from '../../api-access/index.js';
import { check, type DoctorCheck } from './check.js';
import { probePeerCertificate } from './tls-probe.js';

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function tlsCheck(
  baseUrl: string,
  network: Pick<NetworkOptions, 'extraCaCertificates'>,
  settings: ProxySettings,
  proxy: string | null,
): Promise<DoctorCheck> {
  const host = new URL(baseUrl).host;
  try {
    const peer = await probePeerCertificate(baseUrl, {
      extraCaCertificates: network.extraCaCertificates,
      ...(proxy === null || settings.httpsProxy === undefined
        ? {}
        : { proxy: { url: settings.httpsProxy, token: settings.token } }),
    });
    const who = `${host} presents "${peer.subject}" issued by "${peer.issuer}"`;
    if (peer.rejection === null) return check('ok', 'api tls', `${who}, trusted`);
    return check(
      'fail',
      'api tls',
      `${who}: not trusted (${peer.rejection})`,
      `save the PEM certificate of the CA "${peer.issuer}" (your network team has it) and set api.ca_file to that file`,
    );
  } catch (error) {
    return check('warn', 'api tls', `certificate of ${host} not checked: ${describeError(error)}`);
  }
}

export async function networkChecks(config: Config): Promise<DoctorCheck[]> {
  const baseUrl = config.api.base_url;
  if (config.api.sandbox === 'embedded' || baseUrl === undefined) {
    return [check('ok', 'api proxy', 'none: the embedded sandbox runs inside this process')];
  }
  let network: ReturnType<typeof apiNetworkOptions>;
  let settings: ProxySettings;
  try {
    network = apiNetworkOptions(config);
    settings = resolveProxySettings(network);
  } catch (error) {
    const message = describeError(error);
    const key = message.startsWith('api.ca_file') ? 'api ca_file' : 'api proxy';
    return [check('fail', key, message, 'fix the setting named at the start of this line')];
  }
  const route = proxyRouteFor(baseUrl, settings);
  const results = [
    check('ok', 'api proxy', `${route.proxy ?? 'none'} for ${new URL(baseUrl).host} (${route.reason})`),
  ];
  if (baseUrl.startsWith('https:')) results.push(await tlsCheck(baseUrl, network, settings, route.proxy));
  return results;
}
