/** A delivery attempt that reached nothing says why, and shows the endpoint URL without what may carry a credential. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { postSigned } from '../../src/sandbox/webhooks/post.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a webhook delivery that reaches nothing', () => {
  it('names the socket error and the URL, without user info or query', async () => {
    const port = await closedPort();
    const refused = await postSigned(`http://127.0.0.1:${port}/hook?token=q-secret`, 'whsec_x', '{}', 1, 1);
    expect(refused.status).toBeNull();
    expect(refused.error).toMatch(
      new RegExp(`^could not reach http://127\\.0\\.0\\.1:${port}/hook: ECONNREFUSED \\(`),
    );
    expect(refused.error).not.toContain('q-secret');

    const withUser = await postSigned(`http://ops:u-secret@127.0.0.1:${port}/hook`, 'whsec_x', '{}', 1, 1);
    expect(withUser.status).toBeNull();
    expect(withUser.error).toContain(`could not reach http://127.0.0.1:${port}/hook`);
    expect(withUser.error).not.toContain('u-secret');
  });
});
