/**
 * The URL to call a listener at from this machine. A wildcard address (0.0.0.0, ::) is where a server listens, not
 * an address anyone can call: it stands for every interface, loopback among them, so the URL names loopback.
 */
import { isIPv6 } from 'node:net';

const WILDCARD_TO_LOOPBACK: Readonly<Record<string, string>> = {
  '0.0.0.0': '127.0.0.1',
  '::': '::1',
  '0:0:0:0:0:0:0:0': '::1',
};

export function listenerUrl(scheme: 'http' | 'https', host: string, port: number): string {
  const callable = WILDCARD_TO_LOOPBACK[host] ?? host;
  const shown = isIPv6(callable) ? `[${callable}]` : callable;
  return `${scheme}://${shown}:${port}`;
}
