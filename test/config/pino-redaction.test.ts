import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { parseConfig, redactionPaths } from '../../src/config/index.js';
import { registryWithConnectors } from './fixtures.js';

describe('redaction paths in a real pino logger', () => {
  it('keeps every secret of a logged config out of the log output', () => {
    const secrets = ['svc_live_LOG_SECRET_1', 'whsec_LOG_SECRET_2', 'postgres://u:LOG_SECRET_3@127.0.0.1/db'];
    const registry = registryWithConnectors();
    const text = `api:\n  base_url: https://api.example.com/v2\n  api_key: ${secrets[0]}\nserver:\n  webhook_secrets: ['${secrets[1]}']\nconnectors:\n  books:\n    type: sql\n    connection:\n      driver: pg\n      url: '${secrets[2]}'\n`;
    const { config } = parseConfig('c.yaml', text, { env: {}, registry });
    let output = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        output += chunk.toString();
        done();
      },
    });
    const logger = pino({ redact: redactionPaths({ prefix: 'config', registry }) }, sink);
    logger.info({ config }, 'config loaded');
    expect(output).toContain('https://api.example.com/v2');
    expect(output).toContain('[Redacted]');
    for (const secret of secrets) expect(output).not.toContain(secret);
  });
});
