import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient } from '../../src/client/index.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { me, TEST_KEY } from './helpers/fixtures.js';
import {
  json,
  problem,
  sendJson,
  sendProblem,
  startScriptServer,
  type Handler,
  type ScriptServer,
} from './helpers/script-server.js';

let server: ScriptServer;
let client: TestClient;
let issued: string[];
/** Tokens the server still accepts. */
let valid: Set<string>;

/** A small token endpoint plus GET /me that accepts only currently valid tokens. */
const tokenServer: Handler = (request, response) => {
  if (request.path === '/oauth/token') {
    const token = `eyJ.token-${issued.length + 1}.sig`;
    issued.push(token);
    valid.add(token);
    sendJson(response, 200, {
      access_token: token,
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'supplier.orders:read',
    });
    return;
  }
  const presented = (request.headers.authorization ?? '').replace(/^Bearer /, '');
  if (!valid.has(presented)) {
    sendProblem(response, 401, 'unauthorized', 'token expired or invalid');
    return;
  }
  sendJson(response, 200, me());
};

beforeEach(async () => {
  server = await startScriptServer();
  issued = [];
  valid = new Set();
  server.setFallback(tokenServer);
  client = makeClient(server, {
    auth: { mode: 'client_credentials', clientId: 'cli_1', scope: 'supplier.orders:read' },
  });
});

afterEach(async () => {
  await client.close();
  await server.close();
});

describe('API key authentication', () => {
  it('sends the key as a Bearer token', async () => {
    await client.close();
    client = makeClient(server);
    server.setFallback(json(200, me()));
    await client.api.account.me();
    expect(server.requests[0]?.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
  });
});

describe('default HTTP agent', () => {
  it('uses its own keep-alive agent when no dispatcher is injected, reusing connections', async () => {
    const api = createApiClient({ baseUrl: server.baseUrl, apiKey: TEST_KEY });
    server.setFallback(json(200, me()));
    for (let index = 0; index < 10; index += 1) await api.account.me();
    await api.close();
    expect(server.requests).toHaveLength(10);
    expect(server.connections()).toBeLessThanOrEqual(2);
  });
});

describe('client_credentials authentication', () => {
  it('exchanges the key for a token once and reuses it', async () => {
    await client.api.account.me();
    await client.api.account.me();
    const paths = server.requests.map((request) => request.path);
    expect(paths).toEqual(['/oauth/token', '/me', '/me']);
    expect(server.requests[0]?.json).toEqual({
      grant_type: 'client_credentials',
      client_id: 'cli_1',
      client_secret: TEST_KEY,
      scope: 'supplier.orders:read',
    });
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${issued[0]}`);
  });

  it('refreshes shortly before expiry', async () => {
    await client.api.account.me();
    client.clock.advance(3600_000 - 30_000); // inside the 60 s refresh margin
    await client.api.account.me();
    expect(issued).toHaveLength(2);
    expect(server.requests.at(-1)?.headers.authorization).toBe(`Bearer ${issued[1]}`);
  });

  it('refreshes once on a 401 when the token stops working mid-run', async () => {
    await client.api.account.me();
    valid.clear(); // the server revokes the token before its stated expiry
    const result = await client.api.account.me();
    expect(result.account.id).toBe('acc_sup');
    expect(issued).toHaveLength(2);
    expect(server.requests.map((request) => request.path)).toEqual([
      '/oauth/token',
      '/me',
      '/me',
      '/oauth/token',
      '/me',
    ]);
  });

  it('refreshes only once per call: a second 401 is an error', async () => {
    await client.api.account.me();
    server.setFallback((request, response) => {
      if (request.path === '/oauth/token') return tokenServer(request, response);
      sendProblem(response, 401, 'key_revoked', 'revoked');
    });
    await expect(client.api.account.me()).rejects.toMatchObject({ status: 401, code: 'key_revoked' });
    expect(issued).toHaveLength(2);
  });

  it('shares one exchange between concurrent calls', async () => {
    await Promise.all([client.api.account.me(), client.api.account.me(), client.api.account.me()]);
    expect(issued).toHaveLength(1);
  });

  it('surfaces a failed exchange as the token endpoint error', async () => {
    server.enqueue(
      problem(400, 'validation_error', { errors: [{ field: 'scope', code: 'unsupported_value' }] }),
    );
    await expect(client.api.account.me()).rejects.toMatchObject({
      path: '/oauth/token',
      code: 'validation_error',
      items: [{ field: 'scope', code: 'unsupported_value' }],
    });
  });

  it('rejects a token response without expires_in, without showing the token', async () => {
    server.enqueue(json(200, { access_token: 'eyJ.half-token.sig', token_type: 'Bearer', scope: 'x' }));
    const error = await client.api.account.me().catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'invalid_response', path: '/oauth/token' });
    expect(String(error)).not.toContain('eyJ.half-token.sig');
    expect(String(error)).toContain('expires_in');
  });
});
