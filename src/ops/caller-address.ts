/**
 * Where a request comes from: the connection's peer, and the client a trusted reverse proxy says it forwards. A
 * forwarding header from any other sender is ignored (anyone can write one), and a request that carries one is
 * never taken as a local caller, whoever sent it.
 */
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';

export interface CallerAddress {
  /** The connection's peer. */
  readonly peer: string;
  /** The client a trusted proxy forwarded for; undefined when the peer is no trusted proxy or sent none. */
  readonly forwardedFor?: string | undefined;
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/** An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d; ranges are written for a.b.c.d. */
export function plainAddress(raw: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(raw) ? raw.slice(7) : raw;
}

export function familyOf(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 6 ? 'ipv6' : 'ipv4';
}

export function addressList(cidrs: readonly string[]): BlockList | undefined {
  if (cidrs.length === 0) return undefined;
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address = '', prefix = ''] = cidr.split('/');
    list.addSubnet(address, Number(prefix), familyOf(address));
  }
  return list;
}

export function hasForwardingHeaders(req: IncomingMessage): boolean {
  return FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined);
}

export function isLoopbackPeer(req: IncomingMessage): boolean {
  const peer = plainAddress(req.socket.remoteAddress ?? '');
  return peer === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(peer);
}

/**
 * The rightmost X-Forwarded-For entry that is no trusted proxy itself (the ones to its left were written by the
 * client and prove nothing), else X-Real-IP.
 */
function forwardedClient(req: IncomingMessage, trusted: BlockList): string | undefined {
  const chain = [req.headers['x-forwarded-for']]
    .flat()
    .join(',')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => isIP(entry) !== 0);
  for (let i = chain.length - 1; i >= 0; i--) {
    const entry = chain[i] ?? '';
    if (!trusted.check(entry, familyOf(entry))) return entry;
  }
  const real = [req.headers['x-real-ip']].flat()[0]?.trim();
  return real !== undefined && isIP(real) !== 0 ? real : chain[0];
}

export function callerAddress(req: IncomingMessage, trusted: BlockList | undefined): CallerAddress {
  const peer = plainAddress(req.socket.remoteAddress ?? 'unknown');
  if (trusted === undefined || isIP(peer) === 0 || !trusted.check(peer, familyOf(peer))) return { peer };
  return { peer, forwardedFor: forwardedClient(req, trusted) };
}

/** As written after a caller's name: `203.0.113.9 via 127.0.0.1` behind a trusted proxy, else the peer. */
export function shownAddress(address: CallerAddress): string {
  return address.forwardedFor === undefined ? address.peer : `${address.forwardedFor} via ${address.peer}`;
}
