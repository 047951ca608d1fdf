import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_LOG_REDACT_PATHS } from '../../src/client/index.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { me, TEST_KEY } from './helpers/fixtures.js';
import {
  resetMidBody,
  sendJson,
  sendProblem,
  startScriptServer,
  type ScriptServer,
} from './helpers/script-server.js';

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjbGlfMSJ9.c2VjcmV0LXNpZ25hdHVyZQ';

let server: ScriptServer;
let client: TestClient;
let lines: string[];

beforeEach(async () => {
  server = await startScriptServer();
  lines = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  const logger = pino({ level: 'trace', redact: [...CLIENT_LOG_REDACT_PATHS] }, sink);
  client = makeClient(server, {
    logger,
    auth: { mode: 'client_credentials', clientId: 'cli_1' },
    retry: { maxAttempts: 3 },
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('secrets stay out of logs and errors', () => {
  it('logs a full scripted run without the key, client secret or token', async () => {
    let meCalls = 0;
    server.setFallback((request, response) => {
      if (request.path === '/oauth/token') {
        sendJson(response, 200, { access_token: TOKEN, token_type: 'Bearer', expires_in: 3600, scope: 'x' });
        return;
      }
      if (request.path === '/me') {
        meCalls += 1;
        if (meCalls === 1) return resetMidBody()(request, response);
        if (meCalls === 2) {
          sendProblem(response, 429, 'rate_limited', 'slow down', {}, { 'retry-after': '1' });
          return;
        }
        sendJson(response, 200, me());
        return;
      }
      // An error whose detail echoes the credentials back, as a careless gateway might.
      sendProblem(
        response,
        403,
        'scope_missing',
        `token ${TOKEN} (key ${TEST_KEY}) lacks supplier.orders:write`,
      );
    });

    await client.api.account.me();
    const error = await client.api.orders
      .reject('ord_1', { reason: 'no stock' })
      .catch((caught: unknown) => caught);
    const failedExchange = await (async () => {
      server.setFallback((_request, response) =>
        sendProblem(response, 401, 'unauthorized', `bad secret ${TEST_KEY}`),
      );
      client.clock.advance(4 * 3600_000); // the token expired: the next call exchanges again, and fails
      return client.api.account.me().catch((caught: unknown) => caught);
    })();

    expect(error).toMatchObject({ code: 'scope_missing' });
    expect(failedExchange).toMatchObject({ code: 'unauthorized', path: '/oauth/token' });
    const messages = [error, failedExchange].map((caught) => `${String(caught)} ${JSON.stringify(caught)}`);
    const log = lines.join('');
    // The run did log what operators need.
    expect(log).toContain('"path":"/oauth/token"');
    expect(log).toContain('"status":429');
    expect(log).toContain('"code":"network_error"');
    expect(log).toContain('"requestId":"req_');
    expect(log).toContain('"attempt":2');
    expect(log).toContain('API call failed; retrying');
    for (const secret of [TEST_KEY, TOKEN, TEST_KEY.slice('svc_test_'.length)]) {
      expect(log).not.toContain(secret);
      for (const message of messages) expect(message).not.toContain(secret);
    }
    expect(String(error)).toContain('[redacted]');
  });

  it('logs a deprecated route once, with its Sunset and Deprecation headers', async () => {
    server.setFallback((request, response) => {
      if (request.path === '/oauth/token') {
        sendJson(response, 200, { access_token: TOKEN, token_type: 'Bearer', expires_in: 3600, scope: 'x' });
        return;
      }
      sendJson(response, 200, me(), { sunset: 'Tue, 01 Dec 2026 00:00:00 GMT', deprecation: '@1764547200' });
    });
    await client.api.account.me();
    await client.api.account.me();
    const warnings = lines.filter((line) => line.includes('API route is deprecated'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"sunset":"Tue, 01 Dec 2026 00:00:00 GMT"');
    expect(warnings[0]).toContain('"route":"/me"');
  });
});
