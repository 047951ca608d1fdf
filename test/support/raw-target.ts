import { connect } from 'node:net';

/**
 * Sends `GET <target>` exactly as written (fetch and node:http would refuse or rewrite a malformed target) and
 * returns the status line and the body of the answer.
 */
export function requestRawTarget(
  baseUrl: string,
  target: string,
  method = 'GET',
): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const split = text.indexOf('\r\n\r\n');
      const chunked = /^transfer-encoding: chunked\s*$/im.test(text.slice(0, split));
      const body = text.slice(split + 4);
      resolve({ status, body: chunked ? unchunked(body) : body });
    });
    const length = method === 'POST' ? 'Content-Length: 2\r\n' : '';
    socket.end(
      `${method} ${target} HTTP/1.1\r\nHost: x\r\n${length}Connection: close\r\n\r\n${length ? '{}' : ''}`,
    );
  });
}

/** Absolute-form targets that node:http passes on as sent and that `new URL` cannot read. */
export const MALFORMED_TARGETS = [
  'http://[::1/status',
  'http://x:99999/readyz',
  'http://a:b@/readyz',
  'http://[/v2/orders',
];

/** The body of a chunked answer (RFC 9112 section 7.1), without extensions or trailers. */
function unchunked(body: string): string {
  let out = '';
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.slice(0, lineEnd), 16);
    if (!(size > 0)) return out;
    out += rest.slice(lineEnd + 2, lineEnd + 2 + size);
    rest = rest.slice(lineEnd + 2 + size + 2);
  }
}
