/**
 * server.auth users and roles, server.trusted_proxies, server.control.local_token_file, and the removed loopback
 * mode: what the loader accepts, and what it refuses with a message naming the key and the replacement, never a
 * secret.
 */
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/index.js';
import { credentialsFromConfig } from '../../src/ops/credentials.js';
import { MINIMAL, registryWithConnectors, tempFiles } from './fixtures.js';

const parse = (text: string, env: Record<string, string> = {}) =>
  parseConfig('config/test.yaml', text, {
    env,
    registry: registryWithConnectors(),
    readFile: () => 'unused',
  });

function refusal(text: string, env: Record<string, string> = {}): string {
  try {
    parse(text, env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('server.auth with roles', () => {
  it('makes the single token and username viewers unless the config says operator', () => {
    const single = parse(
      `${MINIMAL}server:\n  auth:\n    token: t0ken-one\n    username: mon\n    password: pw-one\n`,
    );
    expect(credentialsFromConfig(single.config.server.auth).map((c) => [c.name, c.role])).toEqual([
      ['token', 'viewer'],
      ['mon', 'viewer'],
    ]);
    const operator = parse(`${MINIMAL}server:\n  auth:\n    token: t0ken-one\n    role: operator\n`);
    expect(credentialsFromConfig(operator.config.server.auth)).toEqual([
      { name: 'token', role: 'operator', token: 't0ken-one' },
    ]);
  });

  it('reads named users with their roles, secrets from the environment and from files', () => {
    const dir = tempFiles({ 'bob-password': 'bob-secret-pw\n' });
    const file = join(dir, 'config.yaml');
    writeFileSync(
      file,
      `${MINIMAL}server:\n  auth:\n    users:\n      - name: alice\n        role: operator\n        token: \${ALICE_TOKEN}\n` +
        `      - name: bob\n        role: viewer\n        password_file: bob-password\n`,
    );
    const { config } = loadConfig(file, {
      registry: registryWithConnectors(),
      env: { ALICE_TOKEN: 'alice-tok' },
    });
    expect(credentialsFromConfig(config.server.auth)).toEqual([
      { name: 'alice', role: 'operator', token: 'alice-tok' },
      { name: 'bob', role: 'viewer', password: 'bob-secret-pw' },
    ]);
  });

  it('refuses a user without a role or a secret, a role it does not know, and two users with one name or token', () => {
    const message = refusal(
      `${MINIMAL}server:\n  auth:\n    users:\n      - name: a\n        token: same-token-1\n` +
        `      - name: b\n        role: admin\n        token: x1\n` +
        `      - name: c\n        role: viewer\n` +
        `      - name: a\n        role: viewer\n        token: same-token-1\n        password: pw\n`,
    );
    expect(message).toContain('server.auth.users[0].role: expected viewer or operator');
    expect(message).toContain('server.auth.users[1].role: expected viewer or operator');
    expect(message).toContain('server.auth.users[2]: expected token or password (one of them)');
    expect(message).toContain('server.auth.users[3]: expected token or password (one of them)');
    const dupes = refusal(
      `${MINIMAL}server:\n  auth:\n    users:\n      - name: a\n        role: viewer\n        token: same-token-1\n` +
        `      - name: a\n        role: viewer\n        token: same-token-1\n`,
    );
    expect(dupes).toContain('server.auth.users[1].name: "a" is already used by users[0]');
    expect(dupes).toContain('server.auth.users[1].token: is the same as the token of users[0]');
    expect(dupes).not.toContain('same-token-1');
  });

  it('accepts trusted proxies as address ranges and refuses anything else', () => {
    const { config } = parse(`${MINIMAL}server:\n  trusted_proxies: [127.0.0.1/32, '::1/128']\n`);
    expect(config.server.trusted_proxies).toEqual(['127.0.0.1/32', '::1/128']);
    expect(parse(MINIMAL).config.server.trusted_proxies).toEqual([]);
    expect(refusal(`${MINIMAL}server:\n  trusted_proxies: [nginx]\n`)).toContain(
      'server.trusted_proxies[0]: expected an address range like 203.0.113.0/24',
    );
  });
});

describe('server.control', () => {
  it('refuses loopback_without_auth: true, naming the key and what replaces it', () => {
    const message = refusal(`${MINIMAL}server:\n  control:\n    loopback_without_auth: true\n`);
    expect(message).toContain('server.control.loopback_without_auth: is no longer supported');
    expect(message).toContain('server.control.local_token_file');
    expect(message).toContain('server.auth.users with role operator');
    expect(() => parse(`${MINIMAL}server:\n  control:\n    loopback_without_auth: false\n`)).not.toThrow();
  });

  it('resolves local_token_file against the config file and keeps it a path, not a secret read from it', () => {
    const { config } = parse(`${MINIMAL}server:\n  control:\n    local_token_file: run/token\n`);
    expect(config.server.control?.local_token_file).toBe(resolve('config/run/token'));
  });
});
