import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeClient, type TestClient } from './helpers/client.js';
import { page, supplierBuyer } from './helpers/fixtures.js';
import { json, startScriptServer, type ScriptServer } from './helpers/script-server.js';

let server: ScriptServer;
let client: TestClient;

beforeEach(async () => {
  server = await startScriptServer();
  client = makeClient(server);
  server.enqueue(
    json(200, page([supplierBuyer('buy_1')], 'c2')),
    json(200, page([supplierBuyer('buy_2')], 'c3')),
    json(200, page([supplierBuyer('buy_3')], null)),
  );
});

afterEach(async () => {
  await client.close();
  await server.close();
});

/** Waits until the server has received `count` requests, or `ms` have passed. */
async function requestsReach(count: number, ms: number): Promise<number> {
  const until = Date.now() + ms;
  while (server.requests.length < count && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  return server.requests.length;
}

/**
 * For each page handed out: its buyer and how many requests the server has received while the caller still holds
 * the page (waiting up to 300 ms for one more).
 */
async function walk(readAhead: boolean): Promise<Array<[string | undefined, number]>> {
  const seen: Array<[string | undefined, number]> = [];
  let index = 0;
  for await (const current of client.api.supplierBuyers.list({ limit: 1 }).pages({ readAhead })) {
    index += 1;
    seen.push([current.items[0]?.id, await requestsReach(index + 1, 300)]);
  }
  return seen;
}

describe('pages({ readAhead })', () => {
  it('has the next page requested while the caller holds a page, and no request past the last page', async () => {
    expect(await walk(true)).toEqual([
      ['buy_1', 2],
      ['buy_2', 3],
      ['buy_3', 3],
    ]);
    expect(server.requests.map((request) => request.query.get('cursor'))).toEqual([null, 'c2', 'c3']);
  });

  it('without it, asks for a page only when the caller wants it', async () => {
    expect(await walk(false)).toEqual([
      ['buy_1', 1],
      ['buy_2', 2],
      ['buy_3', 3],
    ]);
  });
});
