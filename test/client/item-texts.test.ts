import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataElementTexts } from '../../src/client/item-texts.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { supplierBuyer } from './helpers/fixtures.js';
import { startScriptServer, type ScriptServer } from './helpers/script-server.js';

// The oracle is JSON.parse: every text cut from a body must parse to the element JSON.parse found at that place.
function expectElementsOf(text: string): void {
  const texts = dataElementTexts(text);
  const data = (JSON.parse(text) as { data: unknown[] }).data;
  expect(texts).not.toBeNull();
  expect(texts?.map((element) => JSON.parse(element) as unknown)).toEqual(data);
  for (const element of texts ?? []) expect(element).toBe(element.trim());
}

/** A random JSON value with the characters a scanner could trip on in strings and keys. */
function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 3 ? 4 : 7));
  const tricky = ['"', '\\', '\\"', '{', '}', '[', ']', ',', ':', 'data', '\u00e9', '\n', ' '];
  const randomString = () =>
    Array.from({ length: Math.floor(random() * 6) }, () => tricky[Math.floor(random() * tricky.length)]).join(
      '',
    );
  switch (pick) {
    case 0:
      return randomString();
    case 1:
      return Math.round(random() * 1e6) / 100;
    case 2:
      return random() < 0.5 ? null : random() < 0.5;
    case 3:
      return -Math.floor(random() * 1000);
    case 4:
      return Array.from({ length: Math.floor(random() * 4) }, () => randomValue(random, depth + 1));
    default:
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, () => [
          randomString(),
          randomValue(random, depth + 1),
        ]),
      );
  }
}

function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('dataElementTexts', () => {
  it('cuts each element of data, whatever the spacing, strings, nesting and key order', () => {
    expectElementsOf('{"data":[]}');
    expectElementsOf('{ "has_more" : false , "data" : [ 1 , "a,b" , { "x" : [ "]" , "}" ] } , null ] }');
    expectElementsOf('{"next_cursor":"data","data":[{"s":"quote \\" and backslash \\\\"},[[],{}],true]}');
    expectElementsOf('{"d\\u0061ta":[{"id":1}],"other":[2]}');
    expectElementsOf('{"data":[{"id":"old"}],"data":[{"id":"last one wins, as in JSON.parse"}]}');
    expectElementsOf('{\n  "data": [\n    {\n      "id": "a"\n    },\n    "b"\n  ],\n  "has_more": false\n}');
  });

  it('agrees with JSON.parse on random documents', () => {
    const random = seeded(17);
    for (let round = 0; round < 300; round++) {
      const data = Array.from({ length: Math.floor(random() * 5) }, () => randomValue(random, 0));
      const body = { before: randomValue(random, 2), data, after: randomValue(random, 2) };
      expectElementsOf(JSON.stringify(body, null, round % 3 === 0 ? 2 : undefined));
    }
  });

  it('finds nothing in a body without a data array', () => {
    expect(dataElementTexts('{"items":[1,2]}')).toBeNull();
    expect(dataElementTexts('{"data":"not an array"}')).toBeNull();
  });
});

describe('Page.itemTexts', () => {
  let server: ScriptServer;
  let client: TestClient;

  beforeEach(async () => {
    server = await startScriptServer();
    client = makeClient(server);
  });

  afterEach(async () => {
    await client.close();
    await server.close();
  });

  it('gives the bytes the API sent for each item kept, skipping quarantined ones', async () => {
    const bad = { id: 'buy_bad', status: 'active', updated_at: '2026-11-20T08:00:00Z' }; // no name: quarantined
    const body = JSON.stringify(
      { data: [supplierBuyer('buy_1'), bad, supplierBuyer('buy_2')], next_cursor: null, has_more: false },
      null,
      2,
    );
    server.enqueue((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_texts' });
      response.end(body);
    });
    const page = await client.api.supplierBuyers.list().firstPage({ itemTexts: true });
    expect(page.items.map((buyer) => buyer.id)).toEqual(['buy_1', 'buy_2']);
    const texts = page.itemTexts ?? [];
    expect(texts).toEqual([
      JSON.stringify(supplierBuyer('buy_1'), null, 2).replace(/\n/g, '\n    '),
      JSON.stringify(supplierBuyer('buy_2'), null, 2).replace(/\n/g, '\n    '),
    ]);
    for (const text of texts) expect(body).toContain(text);
  });

  it('leaves them out unless asked', async () => {
    server.enqueue((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_plain' });
      response.end(JSON.stringify({ data: [supplierBuyer('buy_1')], next_cursor: null, has_more: false }));
    });
    const page = await client.api.supplierBuyers.list().firstPage();
    expect(page.items).toHaveLength(1);
    expect(page.itemTexts).toBeUndefined();
  });
});
