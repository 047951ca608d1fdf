import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { createManualClock } from '../../../src/sandbox/index.js';
import { call, field, withSandbox } from './fixtures.js';

async function upload(
  baseUrl: string,
  key: string,
  data: Uint8Array,
  purpose = 'document_attachment',
  name = 'invoice.pdf',
) {
  const form = new FormData();
  form.set('purpose', purpose);
  form.set('file', new Blob([data], { type: 'application/pdf' }), name);
  const response = await fetch(`${baseUrl}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  const text = await response.text();
  return { status: response.status, json: JSON.parse(text) as unknown, headers: response.headers };
}

describe('sandbox files (contract part 4.13)', () => {
  it('stores a multipart upload with its sha256 and serves it at a signed URL that expires after an hour', async () => {
    const clock = createManualClock();
    await withSandbox({ clock }, async (sandbox) => {
      const data = Buffer.from('%PDF-1.4 demo invoice');
      const created = await upload(sandbox.baseUrl, sandbox.keys.supplier, data);
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({
        name: 'invoice.pdf',
        content_type: 'application/pdf',
        size_bytes: data.length,
        purpose: 'document_attachment',
        sha256: createHash('sha256').update(data).digest('hex'),
      });
      const id = String(field(created.json, 'id'));
      const fetched = await call(`${sandbox.baseUrl}/files/${id}`, { key: sandbox.keys.supplier });
      expect(fetched.status).toBe(200);
      const downloadUrl = String(field(fetched.json, 'download_url'));
      expect(downloadUrl.startsWith(sandbox.origin)).toBe(true);
      const download = await fetch(downloadUrl);
      expect(download.status).toBe(200);
      expect(Buffer.from(await download.arrayBuffer()).equals(data)).toBe(true);
      const tampered = await fetch(
        downloadUrl.replace(/signature=([0-9a-f])/, (_m, c: string) => `signature=${c === '0' ? '1' : '0'}`),
      );
      expect(tampered.status).toBe(404);
      clock.advance(3_600_000 + 1000);
      expect((await fetch(downloadUrl)).status).toBe(404);
      // Another account cannot see the file.
      expect((await call(`${sandbox.baseUrl}/files/${id}`, { key: sandbox.keys.buyer })).status).toBe(404);
    });
  });

  it('answers 413 file_too_large above 25 MB and 422 invalid_enum for an unknown purpose', async () => {
    await withSandbox({}, async (sandbox) => {
      const tooLarge = await upload(sandbox.baseUrl, sandbox.keys.supplier, new Uint8Array(26_214_401));
      expect(tooLarge.status).toBe(413);
      expect(field(tooLarge.json, 'code')).toBe('file_too_large');
      const badPurpose = await upload(sandbox.baseUrl, sandbox.keys.supplier, new Uint8Array(3), 'selfie');
      expect(badPurpose.status).toBe(422);
      expect(field(badPurpose.json, 'errors', 0)).toMatchObject({ field: 'purpose', code: 'invalid_enum' });
      const exact = await upload(sandbox.baseUrl, sandbox.keys.supplier, new Uint8Array(26_214_400));
      expect(exact.status).toBe(201);
    });
  });

  it('deletes unreferenced files 24 hours after upload by the sandbox clock', async () => {
    const clock = createManualClock();
    await withSandbox({ clock }, async (sandbox) => {
      const created = await upload(sandbox.baseUrl, sandbox.keys.supplier, Buffer.from('x'));
      const id = String(field(created.json, 'id'));
      expect(field(created.json, 'expires_at')).toBe(new Date(clock.now() + 24 * 3_600_000).toISOString());
      const advance = (ms: number) => call(`${sandbox.controlUrl}/clock`, { body: { advance_ms: ms } });
      expect((await advance(23 * 3_600_000)).status).toBe(200);
      expect((await call(`${sandbox.baseUrl}/files/${id}`, { key: sandbox.keys.supplier })).status).toBe(200);
      await advance(3_600_000);
      const gone = await call(`${sandbox.baseUrl}/files/${id}`, { key: sandbox.keys.supplier });
      expect(gone.status).toBe(404);
      expect(field(gone.json, 'code')).toBe('not_found');
    });
  });

  it('keeps a file once the domain marks it referenced', async () => {
    const clock = createManualClock();
    await withSandbox({ clock }, async (sandbox) => {
      const created = await upload(sandbox.baseUrl, sandbox.keys.supplier, Buffer.from('kept'));
      const id = String(field(created.json, 'id'));
      const referenced = await call(`${sandbox.controlUrl}/actions/reference`, { body: { file_id: id } });
      expect(field(referenced.json, 'exists')).toBe(true);
      await call(`${sandbox.controlUrl}/clock`, { body: { advance_ms: 48 * 3_600_000 } });
      const kept = await call(`${sandbox.baseUrl}/files/${id}`, { key: sandbox.keys.supplier });
      expect(kept.status).toBe(200);
      expect(field(kept.json, 'expires_at')).toBeNull();
    });
  });
});
