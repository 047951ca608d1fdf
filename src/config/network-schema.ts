/** Config blocks for how the daemon reaches the API on a corporate network: a forward proxy and private CAs. */
import { isIP } from 'node:net';
import * as z from 'zod';
import { secret } from './secret.js';

export const proxySchema = z
  .strictObject({
    url: z
      .url({ protocol: /^https?$/, error: 'expected a proxy URL like http://proxy.example.com:3128' })
      .describe(
        'Forward proxy for every API call, token exchange, upload and download; overrides HTTPS_PROXY, HTTP_PROXY and NO_PROXY',
      )
      .meta({ examples: ['http://proxy.example.com:3128'] }),
    username: z
      .string()
      .min(1)
      .optional()
      .describe('Proxy user name (Basic proxy authentication)')
      .meta({ examples: ['svc-supply-sync'] }),
    password: secret('the proxy password')
      .optional()
      .describe('Proxy password, as ${ENV} or password_file; never printed')
      .meta({ examples: ['${PROXY_PASSWORD}'] }),
    no_proxy: z
      .string()
      .optional()
      .describe(
        'Hosts reached directly, NO_PROXY syntax (host, .domain, host:port, *); the NO_PROXY variable does not apply when api.proxy is set',
      )
      .meta({ examples: ['localhost,127.0.0.1,.corp.example.com'] }),
  })
  .describe('Outbound proxy; without it HTTPS_PROXY, HTTP_PROXY and NO_PROXY (any case) apply');

export const caFileSchema = z
  .string()
  .min(1)
  .describe(
    'PEM file with one or more CA certificates trusted in addition to the system store (a TLS-inspecting proxy, a private API gateway); relative to the config file',
  )
  .meta({ examples: ['/etc/ssl/certs/corp-root-ca.pem'] });

export const serverTlsSchema = z
  .strictObject({
    cert_file: z
      .string()
      .min(1)
      .describe(
        'PEM certificate (leaf first, then intermediates) the server presents; re-read when it changes',
      )
      .meta({ examples: ['/etc/supply-sync/tls/server.crt'] }),
    key_file: z
      .string()
      .min(1)
      .describe('PEM private key of cert_file; re-read when it changes; must match the certificate')
      .meta({ examples: ['/etc/supply-sync/tls/server.key'] }),
    ca_file: z
      .string()
      .min(1)
      .optional()
      .describe('PEM CA certificates: when set, clients must present a certificate signed by one of them')
      .meta({ examples: ['/etc/supply-sync/tls/clients-ca.pem'] }),
  })
  .describe(
    'Serve the webhook path and the operations endpoints over https; paths relative to the config file',
  );

const CIDR_HINT = 'expected an address range like 203.0.113.0/24 or 2001:db8::/32';

export const cidrSchema = z.string({ error: CIDR_HINT }).refine(
  (value) => {
    const [address = '', prefix, extra] = value.split('/');
    const family = isIP(address);
    if (family === 0 || prefix === undefined || extra !== undefined || !/^\d+$/.test(prefix)) return false;
    return Number(prefix) <= (family === 4 ? 32 : 128);
  },
  { error: CIDR_HINT },
);

export const webhookListenerSchema = z
  .strictObject({
    host: z
      .string()
      .min(1)
      .optional()
      .describe('Interface of a separate webhook listener (with port); default server.host')
      .meta({ examples: ['0.0.0.0'] }),
    port: z
      .number()
      .int()
      .min(0)
      .max(65_535)
      .optional()
      .describe(
        'Serve the webhook path on its own port (it can face the internet while /metrics and /status stay on server.host)',
      )
      .meta({ examples: [8443] }),
    tls: serverTlsSchema
      .optional()
      .describe('TLS of the separate webhook listener (needs port); default plain http'),
    allow_cidrs: z
      .array(cidrSchema)
      .default([])
      .describe(
        "Sender address ranges allowed on the webhook path (the API's published ranges); checked in addition to the signature, never instead",
      ),
  })
  .refine(
    (webhooks) => webhooks.port !== undefined || (webhooks.host === undefined && webhooks.tls === undefined),
    {
      error: 'host and tls of server.webhooks apply to a separate listener: give port too',
    },
  )
  .describe('Webhook intake settings');
