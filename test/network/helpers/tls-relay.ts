/** An https front for a loopback http server: terminates TLS with the given certificate and relays the bytes. */
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer } from 'node:tls';

export interface TlsRelay {
  readonly origin: string;
  close(): Promise<void>;
}

export async function startTlsRelay(targetPort: number, cert: string, key: string): Promise<TlsRelay> {
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  };
  const server = createServer({ cert, key }, (client) => {
    track(client);
    const upstream = connect(targetPort, '127.0.0.1');
    track(upstream);
    client.pipe(upstream).pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
