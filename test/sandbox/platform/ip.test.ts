import { describe, expect, it } from 'vitest';
import { ipAllowed, ipInCidr, isLoopback } from '../../../src/sandbox/platform/ip.js';

describe('sandbox IP allowlists', () => {
  it('matches IPv4, IPv4-mapped IPv6 and IPv6 addresses against CIDR ranges', () => {
    expect(ipInCidr('127.0.0.1', '127.0.0.0/8')).toBe(true);
    expect(ipInCidr('::ffff:127.0.0.1', '127.0.0.0/8')).toBe(true);
    expect(ipInCidr('10.1.2.3', '10.1.0.0/16')).toBe(true);
    expect(ipInCidr('10.2.0.1', '10.1.0.0/16')).toBe(false);
    expect(ipInCidr('203.0.113.9', '203.0.113.9')).toBe(true);
    expect(ipInCidr('::1', '::1/128')).toBe(true);
    expect(ipInCidr('2001:db8::1', '2001:db8::/32')).toBe(true);
    expect(ipInCidr('2001:db9::1', '2001:db8::/32')).toBe(false);
    expect(ipInCidr('127.0.0.1', '::1/128')).toBe(false);
  });

  it('allows everything with an empty list and only listed ranges otherwise', () => {
    expect(ipAllowed('198.51.100.1', [])).toBe(true);
    expect(ipAllowed('127.0.0.1', ['203.0.113.0/24'])).toBe(false);
    expect(ipAllowed('127.0.0.1', ['203.0.113.0/24', '127.0.0.0/8'])).toBe(true);
  });

  it('recognises loopback callers for the control plane', () => {
    expect(isLoopback('127.0.0.1')).toBe(true);
    expect(isLoopback('::ffff:127.0.0.1')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('192.168.1.5')).toBe(false);
    expect(isLoopback(undefined)).toBe(false);
  });
});
