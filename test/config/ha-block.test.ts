import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { MINIMAL, registryWithConnectors } from './fixtures.js';

const parse = (text: string) =>
  parseConfig('config/test.yaml', text, {
    env: { STATE_DB_PASSWORD: 's3cret-pw' },
    registry: registryWithConnectors(),
    readFile: () => 'unused',
  });

function configError(text: string): ConfigError {
  try {
    parse(text);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

const PG_STATE = `state:\n  url: postgres://sync:\${STATE_DB_PASSWORD}@db.internal:5432/supply_sync\n`;

describe('the ha block', () => {
  it('parses with state.url, durations in milliseconds', () => {
    const { config } = parse(
      `${MINIMAL}${PG_STATE}ha:\n  instance: erp-sync-a\n  lease: 3s\n  poll_interval: 500ms\n`,
    );
    expect(config.ha).toEqual({ instance: 'erp-sync-a', lease: 3_000, poll_interval: 500 });
  });

  it('is optional with state.url (a single instance still elects itself, with the defaults)', () => {
    const { config } = parse(`${MINIMAL}${PG_STATE}`);
    expect(config.ha).toBeUndefined();
    expect(config.state.url).toContain('db.internal');
  });

  it('is refused without state.url, naming ha and state.url, without a stack trace', () => {
    const error = configError(`${MINIMAL}ha:\n  lease: 10s\n`);
    expect(error.message).toContain('ha');
    expect(error.message).toContain('state.url');
    expect(error.message).not.toMatch(/\n\s+at /);
  });

  it('names the key of a bad lease and never prints the state password', () => {
    const error = configError(`${MINIMAL}${PG_STATE}ha:\n  lease: 200ms\n`);
    expect(error.message).toContain('ha.lease');
    expect(error.message).toContain('at least 1s');
    expect(error.message).not.toContain('s3cret-pw');
  });
});
