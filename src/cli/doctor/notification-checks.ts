/**
 * Doctor's notification checks, sending nothing. Email: nodemailer's verify() connects, upgrades to TLS and logs in,
 * then quits before any MAIL FROM. Webhook: a TLS handshake with the receiver (through the proxy's CONNECT tunnel
 * when one applies), checking the certificate against the trusted CAs; no HTTP request at all, because an
 * incoming-webhook URL has no harmless method (a POST posts, and Teams and Slack answer HEAD or GET with errors that
 * say nothing about the token), so the token itself is only checked by `notify test`.
 */
import { dirname } from 'node:path';
import { apiNetworkOptions } from '../../api-access/index.js';
import { proxyRouteFor, resolveProxySettings } from '../../client/network.js';
import type { LoadedConfig } from '../../config/index.js';
import {
  buildChannels,
  channelSecrets,
  emailPort,
  messageOrigin,
  readChannelCa,
} from '../../notify/index.js';
import { scrub } from '../errors.js';
import { check, type DoctorCheck } from './check.js';
import { probePeerCertificate } from './tls-probe.js';

type Env = Readonly<Record<string, string | undefined>>;

function emailFix(name: string, error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === 'EAUTH') return `check notifications.channels.${name}.username and password (password_file)`;
  const text = error instanceof Error ? error.message : '';
  if (/certificate|self.signed|CERT_/i.test(text))
    return `trust the server's CA: set notifications.channels.${name}.ca_file`;
  if (/STARTTLS/i.test(text))
    return `the server offers no STARTTLS: set security: tls (port 465) or ask for STARTTLS`;
  return `check notifications.channels.${name}.host and port, and that outbound SMTP is allowed from this host`;
}

export async function notificationChecks(
  loaded: LoadedConfig,
  env: Env,
  secrets: string[],
): Promise<DoctorCheck[]> {
  const config = loaded.config.notifications;
  if (config === undefined) return [];
  secrets.push(...channelSecrets(config));
  const network = apiNetworkOptions(loaded.config);
  const baseDir = dirname(loaded.file);
  let channels: ReturnType<typeof buildChannels>;
  try {
    channels = buildChannels(config, {
      origin: messageOrigin(loaded),
      baseDir,
      network: { ...network, env },
    });
  } catch (error) {
    const reason = scrub(error instanceof Error ? error.message : String(error), secrets);
    return [check('fail', 'notifications', reason, 'fix the file named, then run doctor again')];
  }
  const results: DoctorCheck[] = [];
  try {
    for (const [name, channel] of Object.entries(config.channels)) {
      const label = `notify ${name}`;
      if (channel.type === 'email') {
        const where = `${channel.host}:${emailPort(channel)} (${channel.security})`;
        try {
          await channels.get(name)?.verify?.();
          const login = channel.username === undefined ? 'no login configured' : 'login accepted';
          results.push(check('ok', label, `SMTP ${where}: reached, ${login}; nothing sent`));
        } catch (error) {
          const reason = scrub(error instanceof Error ? error.message : String(error), secrets);
          results.push(check('fail', label, `SMTP ${where}: ${reason}`, emailFix(name, error)));
        }
        continue;
      }
      results.push(
        await webhookCheck(name, channel.url, channel.ca_file, { baseDir, network, env, secrets }),
      );
    }
  } finally {
    for (const channel of channels.values()) channel.close();
  }
  return results;
}

async function webhookCheck(
  name: string,
  url: string,
  caFile: string | undefined,
  context: { baseDir: string; network: ReturnType<typeof apiNetworkOptions>; env: Env; secrets: string[] },
): Promise<DoctorCheck> {
  const label = `notify ${name}`;
  const host = new URL(url).host;
  const settings = resolveProxySettings({ proxy: context.network.proxy, env: context.env });
  const route = proxyRouteFor(url, settings);
  const extra = [
    ...(context.network.extraCaCertificates ?? []),
    ...(caFile === undefined ? [] : [readChannelCa(context.baseDir, caFile, name)]),
  ];
  try {
    const peer = await probePeerCertificate(url, {
      extraCaCertificates: extra,
      ...(route.proxy === null || settings.httpsProxy === undefined
        ? {}
        : { proxy: { url: settings.httpsProxy, token: settings.token } }),
    });
    if (peer.rejection !== null) {
      return check(
        'fail',
        label,
        `webhook ${host}: certificate not trusted (${peer.rejection}; issuer ${peer.issuer})`,
        `trust its CA: set notifications.channels.${name}.ca_file or api.ca_file`,
      );
    }
    return check(
      'ok',
      label,
      `webhook ${host}: TLS handshake ok (${route.reason}); the URL's token is checked only by sending: supply-sync notify test --channel ${name}`,
    );
  } catch (error) {
    const reason = scrub(error instanceof Error ? error.message : String(error), context.secrets);
    return check(
      'fail',
      label,
      `webhook ${host}: ${reason}`,
      'check the URL and that this host may reach it (proxy, firewall)',
    );
  }
}
