/** A loopback port free at the moment of asking (taken and let go), for a server started by a test or a benchmark. */
import { createServer } from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') {
        server.close(() => reject(new Error('the loopback listener has no port')));
        return;
      }
      server.close(() => resolve(address.port));
    });
  });
}
