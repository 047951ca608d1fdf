/** IPv4/IPv6 CIDR matching for client IP allowlists. */
import { isIPv4, isIPv6 } from 'node:net';

function ipv4ToBigInt(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) + BigInt(Number(part)), 0n);
}

function ipv6ToBigInt(ip: string): bigint {
  let text = ip;
  const v4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4Tail?.[1]) {
    const v4 = ipv4ToBigInt(v4Tail[1]);
    text = `${text.slice(0, -v4Tail[1].length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headParts.length - tailParts.length;
  const parts = [...headParts, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailParts];
  return parts.reduce((acc, part) => (acc << 16n) + BigInt(parseInt(part || '0', 16)), 0n);
}

/** Normalises IPv4-mapped IPv6 (::ffff:127.0.0.1) to plain IPv4. */
export function normaliseIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

export function ipInCidr(rawIp: string, cidr: string): boolean {
  const ip = normaliseIp(rawIp);
  const [base = '', bitsText] = cidr.split('/');
  if (isIPv4(ip) && isIPv4(base)) {
    const bits = bitsText === undefined ? 32 : Number(bitsText);
    const shift = BigInt(32 - bits);
    return ipv4ToBigInt(ip) >> shift === ipv4ToBigInt(base) >> shift;
  }
  if (isIPv6(ip) && isIPv6(base)) {
    const bits = bitsText === undefined ? 128 : Number(bitsText);
    const shift = BigInt(128 - bits);
    return ipv6ToBigInt(ip) >> shift === ipv6ToBigInt(base) >> shift;
  }
  return false;
}

export function ipAllowed(ip: string, allowlist: readonly string[]): boolean {
  return allowlist.length === 0 || allowlist.some((cidr) => ipInCidr(ip, cidr));
}

export function isLoopback(rawIp: string | undefined): boolean {
  if (rawIp === undefined) return false;
  const ip = normaliseIp(rawIp);
  return ip === '::1' || ip.startsWith('127.');
}
