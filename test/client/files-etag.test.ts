import { createHash } from 'node:crypto';
import { Response } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientConfigError, MAX_FILE_BYTES } from '../../src/client/index.js';
import { makeClient, type TestClient } from './helpers/client.js';
import { supplierBuyer } from './helpers/fixtures.js';
import {
  json,
  problem,
  resetMidBody,
  sendJson,
  startScriptServer,
  type RecordedRequest,
  type ScriptServer,
} from './helpers/script-server.js';

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

async function parseMultipart(request: RecordedRequest) {
  const form = await new Response(request.body, {
    headers: { 'content-type': String(request.headers['content-type']) },
  }).formData();
  const file = form.get('file');
  if (file === null || typeof file === 'string') throw new Error('no file part');
  return {
    purpose: form.get('purpose'),
    name: file.name,
    bytes: Buffer.from(await file.arrayBuffer()),
    type: file.type,
  };
}

function storedFile(sha256: string) {
  return {
    id: 'file_1',
    name: 'INV-1001.pdf',
    content_type: 'application/pdf',
    size_bytes: 9,
    download_url: 'https://files.example.test/file_1?sig=abc',
    purpose: 'document_attachment',
    sha256,
    created_at: '2026-11-22T08:00:00Z',
    expires_at: null,
  };
}

describe('file upload', () => {
  const content = Buffer.from('%PDF-1.7\n');
  const sha256 = createHash('sha256').update(content).digest('hex');

  it('sends multipart with purpose and file, computes sha256, and reuses the same bytes on retry', async () => {
    server.enqueue(resetMidBody(), json(201, storedFile(sha256)));
    const uploaded = await client.api.files.upload({
      content,
      name: 'INV-1001.pdf',
      contentType: 'application/pdf',
      purpose: 'document_attachment',
    });
    expect(uploaded.sha256).toBe(sha256);
    expect(uploaded.file.id).toBe('file_1');
    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    if (!first || !second) throw new Error('two requests expected');
    expect(first.body.equals(second.body)).toBe(true);
    expect(first.headers['content-type']).toBe(second.headers['content-type']);
    expect(first.headers['idempotency-key']).toBe(second.headers['idempotency-key']);
    const parts = await parseMultipart(first);
    expect(parts).toEqual({
      purpose: 'document_attachment',
      name: 'INV-1001.pdf',
      bytes: content,
      type: 'application/pdf',
    });
  });

  it('refuses a file above 25 MB before sending anything', async () => {
    const tooBig = new Uint8Array(MAX_FILE_BYTES + 1);
    await expect(
      client.api.files.upload({ content: tooBig, name: 'big.pdf', purpose: 'document_attachment' }),
    ).rejects.toThrow(ClientConfigError);
    expect(server.requests).toHaveLength(0);
  });

  it('flags a stored file whose sha256 differs from the bytes sent', async () => {
    server.setFallback(json(201, storedFile('0'.repeat(64))));
    await expect(
      client.api.files.upload({ content, name: 'INV-1001.pdf', purpose: 'document_attachment' }),
    ).rejects.toMatchObject({ code: 'invalid_response' });
  });
});

describe('ETag and If-Match', () => {
  it('returns the ETag of a supplier buyer and sends it back as If-Match', async () => {
    server.enqueue(json(200, supplierBuyer(), { etag: '"abc123"' }), (request, response) =>
      sendJson(response, 200, { ...supplierBuyer(), erp_ref: (request.json as { erp_ref: string }).erp_ref }),
    );
    const current = await client.api.supplierBuyers.getWithEtag('buy_1');
    expect(current.etag).toBe('"abc123"');
    const updated = await client.api.supplierBuyers.update(
      'buy_1',
      { erp_ref: 'ERP-778' },
      ...(current.etag ? [{ ifMatch: current.etag }] : []),
    );
    expect(updated.erp_ref).toBe('ERP-778');
    expect(server.requests[1]).toMatchObject({
      method: 'PATCH',
      path: '/supplier/buyers/buy_1',
      json: { erp_ref: 'ERP-778' },
    });
    expect(server.requests[1]?.headers['if-match']).toBe('"abc123"');
    expect(server.requests[1]?.headers['idempotency-key']).toBeUndefined();
    expect(client.calls.map((call) => [call.method, call.route, call.status, call.attempt])).toEqual([
      ['GET', '/supplier/buyers/{buyer_id}', 200, 1],
      ['PATCH', '/supplier/buyers/{buyer_id}', 200, 1],
    ]);
    expect(client.calls.every((call) => call.requestId?.startsWith('req_'))).toBe(true);
  });

  it('a stale ETag gives precondition_failed after one attempt', async () => {
    server.setFallback(problem(412, 'precondition_failed'));
    await expect(
      client.api.supplierBuyers.update('buy_1', { customer_number: 'C-1' }, { ifMatch: '"old"' }),
    ).rejects.toMatchObject({
      code: 'precondition_failed',
      attempts: 1,
    });
  });
});
