/**
 * Looks at the certificate the API's host presents (through the configured proxy's CONNECT tunnel when there is
 * one), so doctor can say who signed it and why it is not trusted, instead of a bare "network error".
 */
import { X509Certificate } from 'node:crypto';
import { request } from 'node:http';
import { connect, rootCertificates, type TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';

export interface PeerCertificate {
  readonly subject: string;
  readonly issuer: string;
  /** Null when the chain verified against the trusted CAs and the name matches. */
  readonly rejection: string | null;
}

export interface TlsProbeOptions {
  /** Trusted in addition to the system store (api.ca_file). */
  readonly extraCaCertificates?: readonly string[] | undefined;
  /** The proxy to tunnel through, with its Proxy-Authorization value if any. */
  readonly proxy?: { url: string; token?: string | undefined } | undefined;
  readonly timeoutMs?: number;
}

/** "CN=x, O=y" from the X509 multi-line form. */
function oneLine(name: string): string {
  return name.split('\n').filter(Boolean).join(', ');
}

function tunnel(
  proxyUrl: string,
  token: string | undefined,
  authority: string,
  timeoutMs: number,
): Promise<Socket> {
  const proxy = new URL(proxyUrl);
  const basic =
    proxy.username !== ''
      ? `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`
      : undefined;
  const authorization = token ?? basic;
  return new Promise((resolve, reject) => {
    const req = request({
      host: proxy.hostname,
      port: Number(proxy.port) || 80,
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...(authorization ? { 'proxy-authorization': authorization } : {}) },
      timeout: timeoutMs,
    });
    req.on('connect', (response, socket) => {
      if (response.statusCode === 200) resolve(socket);
      else {
        socket.destroy();
        reject(
          new Error(`the proxy refused the tunnel to ${authority} (HTTP ${response.statusCode ?? '?'})`),
        );
      }
    });
    req.on('timeout', () => req.destroy(new Error('the proxy did not answer in time')));
    req.on('error', reject);
    req.end();
  });
}

export async function probePeerCertificate(
  target: string,
  options: TlsProbeOptions = {},
): Promise<PeerCertificate> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port) || 443;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const socket =
    options.proxy === undefined
      ? undefined
      : await tunnel(options.proxy.url, options.proxy.token, `${url.hostname}:${port}`, timeoutMs);
  const extra = options.extraCaCertificates ?? [];
  return new Promise((resolve, reject) => {
    const tls: TLSSocket = connect({
      ...(socket === undefined ? { host, port } : { socket }),
      servername: /^[\d.:]+$/.test(host) ? '' : host,
      ca: extra.length > 0 ? [...rootCertificates, ...extra] : undefined,
      // Verified below and reported instead of failing the handshake, so the certificate can be shown.
      rejectUnauthorized: false,
      timeout: timeoutMs,
    });
    tls.once('secureConnect', () => {
      const raw = tls.getPeerCertificate().raw;
      const rejection = tls.authorized ? null : String(tls.authorizationError ?? 'not trusted');
      tls.destroy();
      if (raw === undefined) {
        reject(new Error('the server presented no certificate'));
        return;
      }
      const certificate = new X509Certificate(raw);
      resolve({ subject: oneLine(certificate.subject), issuer: oneLine(certificate.issuer), rejection });
    });
    tls.once('timeout', () => tls.destroy(new Error('no TLS handshake in time')));
    tls.once('error', reject);
  });
}
