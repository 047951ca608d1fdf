/** The export-file reader against a loopback server that sends NDJSON in chunks split mid-line. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { DownloadError, ndjsonLines } from '../../../src/flows/mirror/ndjson.js';

let server: Server | null = null;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return `http://127.0.0.1:${port}/downloads/exports/exp_1/orders?signature=s3cr3t-signature`;
}

describe('ndjsonLines', () => {
  it('yields records across chunk boundaries, reports bad lines by number and skips blank lines', async () => {
    const rows = Array.from({ length: 2000 }, (_, i) =>
      JSON.stringify({ id: `ord_${i}`, note: 'x'.repeat(i % 50) }),
    );
    const text = `${rows.slice(0, 1000).join('\n')}\n{not json\n\r\n${rows.slice(1000).join('\r\n')}\n`;
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      // Odd-sized chunks so lines are split between writes.
      const bytes = Buffer.from(text);
      let offset = 0;
      const step = () => {
        if (offset >= bytes.length) return res.end();
        const chunk = bytes.subarray(offset, offset + 997);
        offset += chunk.length;
        res.write(chunk, step);
      };
      step();
    });
    const ids: string[] = [];
    const errors: number[] = [];
    for await (const line of ndjsonLines(url, { signal: new AbortController().signal, label: 'orders' })) {
      if ('error' in line) errors.push(line.lineNumber);
      else ids.push((line.value as { id: string }).id);
    }
    expect(ids).toEqual(Array.from({ length: 2000 }, (_, i) => `ord_${i}`));
    expect(errors).toEqual([1001]);
  });

  it('fails on a non-200 answer without putting the signed URL in the error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/problem+json' });
      res.end('{"code":"not_found"}');
    });
    const read = async () => {
      for await (const line of ndjsonLines(url, {
        signal: new AbortController().signal,
        label: 'the orders file',
      })) {
        void line;
      }
    };
    const error = await read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DownloadError);
    expect((error as DownloadError).status).toBe(404);
    expect(String((error as Error).message)).toBe('download of the orders file answered HTTP 404');
    expect(String((error as Error).message)).not.toContain('s3cr3t');
  });
});
