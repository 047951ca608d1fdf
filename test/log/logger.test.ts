import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, scrubSecrets } from '../../src/log/index.js';

function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString('utf8'));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
}

const planted = {
  apiKey: 'svc_live_9f8e7d6c5b4a39281706',
  bearer: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbGllbnQifQ.c2lnbmF0dXJlLXBsYW50ZWQ',
  clientSecret: 'cs-Plant3d-Cl1ent-S3cret',
  webhookSecret: 'whsec_plantedWebhookSecret123',
  dbPassword: 'Db-P4ss-plant3d!',
  pgPassword: 'pg-url-pass-planted',
  erpPassword: 'erp-config-secret-99',
};

describe('createLogger', () => {
  it('writes none of the planted secrets, wherever they are logged', () => {
    const out = capture();
    const logger = createLogger({
      destination: out.stream,
      redactPaths: ['connectors.erp.options.pass_phrase', 'connectors.erp-main.options.pass_phrase'],
      knownSecrets: [planted.dbPassword, planted.clientSecret],
    });
    logger.info(
      { req: { headers: { authorization: `Bearer ${planted.bearer}`, 'x-request-id': 'r-1' } } },
      'call',
    );
    logger.info({ headers: { Authorization: `Bearer ${planted.bearer}` } }, 'headers at top');
    logger.info({ apiKey: planted.apiKey, client_secret: planted.clientSecret }, 'credentials');
    logger.info({ webhook: { secret: planted.webhookSecret, url: 'https://example.test/hook' } }, 'register');
    logger.info({ db: { connection: { password: planted.dbPassword } } }, 'deeply nested password');
    logger.info({ connectors: { erp: { options: { pass_phrase: planted.erpPassword } } } }, 'config path');
    logger.info(
      { connectors: { 'erp-main': { options: { pass_phrase: planted.erpPassword } } } },
      'dashed path',
    );
    logger.info({ url: `postgres://sync:${planted.pgPassword}@127.0.0.1:5432/erp` }, 'connecting');
    logger.info(`mssql Server=db;User Id=sa;Password=${planted.dbPassword};Encrypt=true`);
    logger.error(
      { err: new Error(`login failed with key ${planted.apiKey} and ${planted.clientSecret}`) },
      'boom',
    );
    logger.warn(new Error(`token ${planted.bearer} rejected`));
    logger.child({ apiKey: planted.apiKey }).info('child line');
    logger.info('format %s', planted.webhookSecret);

    const text = out.text();
    expect(text.split('\n').filter(Boolean)).toHaveLength(13);
    for (const [name, secret] of Object.entries(planted)) {
      expect(text.includes(secret), `${name} leaked`).toBe(false);
    }
    expect(text).toContain('[REDACTED]');
    expect(text).toContain('r-1');
    expect(text).toContain('https://example.test/hook');
  });

  it('reads known secrets lazily, so a rotated secret is scrubbed too', () => {
    const out = capture();
    const secrets = ['first-secret-value'];
    const logger = createLogger({ destination: out.stream, knownSecrets: () => secrets });
    secrets.push('rotated-secret-value');
    logger.info({ note: 'value is rotated-secret-value' }, 'rotated');
    expect(out.text()).not.toContain('rotated-secret-value');
  });
});

describe('scrubSecrets', () => {
  it('replaces known secrets and credential-shaped text', () => {
    const text = scrubSecrets(
      `failed: key ${planted.apiKey}, secret ${planted.clientSecret}, postgres://u:${planted.pgPassword}@h/db, ` +
        `"password": "${planted.dbPassword}", client_secret=${planted.erpPassword}&x=1`,
      [planted.clientSecret],
    );
    for (const secret of Object.values(planted)) expect(text).not.toContain(secret);
    expect(text).toContain('x=1');
    expect(text).toContain('postgres://u:[REDACTED]@h/db');
  });

  it('leaves ordinary text alone and ignores very short known secrets', () => {
    const text = 'order 1234 acknowledged as ERP-77';
    expect(scrubSecrets(text, ['77', ''])).toBe(text);
    // A config path ending in a secret's name is followed by what is wrong with it, not by the secret.
    const issue =
      'api.api_key: environment variable CAFE_EAST_KEY is not set (referenced as ${CAFE_EAST_KEY})';
    expect(scrubSecrets(issue)).toBe(issue);
    expect(scrubSecrets('api_key: abc123 and password=hunter2')).toBe(
      'api_key: [REDACTED] and password=[REDACTED]',
    );
    expect(scrubSecrets('driver: ssl.key.password=hunter2')).toBe('driver: ssl.key.password=[REDACTED]');
  });
});
