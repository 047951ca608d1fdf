/**
 * Webhooks go out the way API calls do: through api.proxy (with its login) or HTTPS_PROXY, in a CONNECT tunnel,
 * trusting the channel's private CA. The proxy is the loopback forward proxy the network tests use.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChannels } from '../../src/notify/index.js';
import { parseConfig, type NotificationsConfig } from '../../src/config/index.js';
import { startForwardProxy, type ForwardProxy } from '../network/helpers/forward-proxy.js';
import { makeTestCa, startWebhookReceiver, type WebhookReceiver } from './receivers.js';

const ca = makeTestCa('Proxy Test CA');
let hook: WebhookReceiver;
let proxy: ForwardProxy;
const BASIC = `Basic ${Buffer.from('svc:proxy-pw').toString('base64')}`;

beforeAll(async () => {
  hook = await startWebhookReceiver(ca);
  proxy = await startForwardProxy({ requireAuthorization: BASIC });
});
afterAll(async () => {
  await hook.close();
  await proxy.close();
});

const config = () =>
  parseConfig(
    '/etc/supply-sync/config.yaml',
    `api:
  sandbox: embedded
notifications:
  channels:
    it:
      type: webhook
      preset: plain
      url: \${HOOK}
      ca_file: ${ca.certFile}
`,
    { env: { HOOK: hook.url } },
  ).config.notifications as NotificationsConfig;

const message = { event: 'test', severity: 'info' as const, subject: 's', text: 't', html: 'h' };
const origin = { instance: 'x', config: '/etc/supply-sync/config.yaml' };

describe('webhooks through a forward proxy', () => {
  it('use api.proxy with its login, in a CONNECT tunnel', async () => {
    const channels = buildChannels(config(), {
      origin,
      baseDir: '/etc/supply-sync',
      network: { proxy: { url: proxy.url, username: 'svc', password: 'proxy-pw' }, env: {} },
    });
    const before = proxy.carried.length;
    expect(await channels.get('it')!.send(message, 'k1')).toBe('HTTP 200: 1');
    expect(proxy.carried.slice(before)).toEqual([
      { kind: 'connect', target: `127.0.0.1:${hook.port}`, method: 'CONNECT', proxyAuthorization: BASIC },
    ]);
    for (const channel of channels.values()) channel.close();
  });

  it('use HTTPS_PROXY from the environment when api.proxy is not set, and NO_PROXY to go direct', async () => {
    const withAuth = proxy.url.replace('http://', 'http://svc:proxy-pw@');
    const via = buildChannels(config(), {
      origin,
      baseDir: '/',
      network: { env: { HTTPS_PROXY: withAuth } },
    });
    const before = proxy.carried.length;
    const received = hook.bodies.length;
    await via.get('it')!.send(message, 'k2');
    expect(proxy.carried.length).toBe(before + 1);
    const direct = buildChannels(config(), {
      origin,
      baseDir: '/',
      network: { env: { HTTPS_PROXY: withAuth, NO_PROXY: '127.0.0.1' } },
    });
    await direct.get('it')!.send(message, 'k3');
    expect(proxy.carried.length).toBe(before + 1);
    expect(hook.bodies.length).toBe(received + 2);
    for (const channel of [...via.values(), ...direct.values()]) channel.close();
  });
});
